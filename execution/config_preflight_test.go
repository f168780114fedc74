package execution

import (
	"strings"
	"testing"
)

// The preflight's settings: maxTxBytes (default geth's 128 KiB) and
// preflightEstimate (default off).
func TestParseConfigPreflight(t *testing.T) {
	c, _, err := ParseConfig("x.yaml", []byte("executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n  maxTxBytes: 65_536\n  preflightEstimate: true\n"))
	if err != nil || c.MaxTxBytes != 65536 || !c.PreflightEstimate {
		t.Errorf("config %+v, %v", c, err)
	}
	c, _, err = ParseConfig("x.yaml", []byte("executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n"))
	if err != nil || DefaultMaxTxBytes != 131072 || c.MaxTxBytes != DefaultMaxTxBytes || c.PreflightEstimate {
		t.Errorf("defaults %+v, %v", c, err)
	}
	for text, want := range map[string]string{
		"executions:\n  maxTxBytes: 100\n":        "x.yaml:2:15: executions.maxTxBytes: expected a whole number in [1024, 16777216]",
		"executions:\n  maxTxBytes: 16777217\n":   "executions.maxTxBytes: expected a whole number in [1024, 16777216]",
		"executions:\n  preflightEstimate: yes\n": "x.yaml:2:22: executions.preflightEstimate: expected true or false",
		"executions:\n  preflightEstimates: on\n": "unknown setting \"preflightEstimates\" (known here: enabled, targets",
	} {
		_, _, err := ParseConfig("x.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v; want %q", text, err, want)
		}
	}
}
