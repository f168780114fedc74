package runconfig

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// xgrYAML has every section of xgr run's config file.
const xgrYAML = `registries: []
finality: confirmations
confirmations: 1
quotas:
  liveSessions: 10
executions:
  enabled: true
  targets:
    - address: 0x00000000000000000000000000000000000000a1
      functions: ["latestPrice(uint256,int256)"]
addresses:
  FEED: "0x5FbDB2315678afecb367f032d93F642f64180aa3"
window: 64
`

// One parse reads every section of the file.
func TestParseReadsEverySection(t *testing.T) {
	f, err := Parse("xgr.yaml", []byte(xgrYAML))
	if err != nil {
		t.Fatal(err)
	}
	if f.Quotas.Default.LiveSessions != 10 || !f.Executions.Enabled || len(f.Executions.Policy.Targets) != 1 ||
		f.Addresses["FEED"] != common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3") || f.Index.Window != 64 ||
		!f.SetsFinality || f.Finality().Mode != "confirmations" || f.Finality().Confirmations != 1 {
		t.Errorf("parsed %+v, index %+v", f, f.Index)
	}
	// A file sets finality only by naming it (a simulation's receipts are
	// otherwise final once mined).
	for raw, want := range map[string]bool{"finality: safe\n": true, "executions:\n  enabled: false\n": false, "": false} {
		if f, err := Parse("f.yaml", []byte(raw)); err != nil || f.SetsFinality != want {
			t.Errorf("%q: SetsFinality %v (%v), want %v", raw, f != nil && f.SetsFinality, err, want)
		}
	}
	none, err := Read("")
	if err != nil || none.Path != "" || none.SetsFinality || none.Finality().Confirmations != 12 || none.Executions.Enabled || none.Addresses != nil {
		t.Errorf("no file: %+v %v", none, err)
	}
}

// An unknown setting is refused wherever it is, with file:line:column and
// what is allowed there.
func TestParseRefusesUnknownSettings(t *testing.T) {
	for _, c := range []struct{ name, raw, want string }{
		{"top level", xgrYAML + "finalty: safe\n", `xgr.yaml:14:1: unknown setting "finalty" (known at the top level: registries, discover, start_block, finality, confirmations, window, triggers, quotas, executions, addresses)`},
		{"executions", strings.Replace(xgrYAML, "  enabled: true\n", "  enabled: true\n  maxGas: 1\n", 1), `xgr.yaml:8:3: executions.maxGas: unknown setting "maxGas"`},
		{"quotas", strings.Replace(xgrYAML, "  liveSessions: 10\n", "  liveSessions: 10\n  sessions: 1\n", 1), `xgr.yaml:6:3: quotas.sessions`},
		{"addresses", strings.Replace(xgrYAML, "  FEED:", "  FEED: 12\n  X:", 1), `xgr.yaml:12:9: addresses.FEED: expected a 0x address`},
		{"triggers", xgrYAML + "triggers:\n  - nam: x\n", `xgr.yaml:15:5: triggers[0].nam: unknown setting "nam"`},
	} {
		_, err := Parse("xgr.yaml", []byte(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
}
