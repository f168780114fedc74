package execution

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestParseConfig(t *testing.T) {
	raw := []byte(`registries: [0x5FbDB2315678afecb367f032d93F642f64180aa3]
executions:
  enabled: true
  targets:
    - 0x00000000000000000000000000000000000000a1
    - "0x00000000000000000000000000000000000000B2"
  maxGasLimit: 500_000
  maxFeePerGas: 100.5 gwei
  defaultSessionGas: 5000000
  inflight: 16
  bumpPercent: 25
  bumpAfterBlocks: 2
finality: safe
`)
	c, rest, err := ParseConfig("xgr.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []common.Address{common.HexToAddress("0xa1"), common.HexToAddress("0xb2")}
	if !c.Enabled || c.Policy.AnyTarget || len(c.Policy.Targets) != 2 || c.Policy.Targets[0] != want[0] || c.Policy.Targets[1] != want[1] ||
		c.Policy.MaxGasLimit != 500_000 || c.Policy.DefaultSessionGas != 5_000_000 || c.MaxFeePerGas.String() != "100500000000" ||
		c.InFlight != 16 || c.BumpPercent != 25 || c.BumpAfterBlocks != 2 {
		t.Errorf("config: %+v", c)
	}
	if strings.Contains(string(rest), "executions") || !strings.Contains(string(rest), "finality: safe") || strings.Count(string(rest), "\n") != strings.Count(string(raw), "\n") {
		t.Errorf("rest keeps the other sections and the line numbers:\n%s", rest)
	}
	if err := c.Check(); err != nil {
		t.Error(err)
	}

	// No section: the defaults, executions off, file unchanged.
	c, rest, err = ParseConfig("xgr.yaml", []byte("finality: safe\n"))
	if err != nil || c.Enabled || c.Policy.MaxGasLimit != DefaultMaxGasLimit || c.MaxFeePerGas.String() != "500000000000" || string(rest) != "finality: safe\n" {
		t.Errorf("defaults: %+v %q %v", c, rest, err)
	}
	// Enabled by a flag later without targets: Check says what to add.
	c.Enabled = true
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "targets: any") {
		t.Errorf("check: %v", err)
	}
	c, _, err = ParseConfig("x.yaml", []byte("executions:\n  targets: any\n  maxFeePerGas: 7000000000\n"))
	if err != nil || !c.Policy.AnyTarget || c.MaxFeePerGas.String() != "7000000000" {
		t.Errorf("any, wei: %+v %v", c, err)
	}
}

// Every bad value is reported with file:line:column, its YAML path and
// what is allowed.
func TestParseConfigProblems(t *testing.T) {
	for text, want := range map[string]string{
		"executions:\n  enabled: yes\n":                                          "x.yaml:2:12: executions.enabled: expected true or false",
		"executions:\n  enabled: true\n":                                         "executions.targets: executions are enabled but no target is allowed",
		"executions:\n  targets: [0x12]\n":                                       "x.yaml:2:13: executions.targets[0]: expected a 0x address",
		"executions:\n  targets: [0x0000000000000000000000000000000000000000]\n": "executions.targets[0]: the zero address is never a target",
		"executions:\n  targets: everything\n":                                   "executions.targets: expected a list of 0x contract addresses, or any",
		"executions:\n  maxGasLimit: 20000\n":                                    "executions.maxGasLimit: expected a whole number in [21000, 9007199254740991]",
		"executions:\n  maxGasLimit: 9007199254740992\n":                         "executions.maxGasLimit: expected a whole number in [21000, 9007199254740991]",
		"executions:\n  defaultSessionGas: -1\n":                                 "executions.defaultSessionGas: expected a whole number",
		"executions:\n  maxFeePerGas: 1.0000000001 gwei\n":                       "executions.maxFeePerGas: expected a fee per gas in wei",
		"executions:\n  maxFeePerGas: 0\n":                                       "executions.maxFeePerGas",
		"executions:\n  maxFeePerGas: 1000000001 gwei\n":                         "executions.maxFeePerGas",
		"executions:\n  inflight: 0\n":                                           "executions.inflight: expected a whole number in [1, 4096]",
		"executions:\n  bumpPercent: 5\n":                                        "executions.bumpPercent: expected a whole number in [10, 1000]",
		"executions:\n  bumpAfterBlocks: 0\n":                                    "executions.bumpAfterBlocks",
		"executions:\n  maxGas: 1\n":                                             "executions.maxGas: unknown setting \"maxGas\" (known here: enabled, targets",
		"executions:\n  inflight: 2\n  inflight: 3\n":                            "x.yaml:3:3: executions.inflight: given twice",
		"executions: [1]\n":                                                      "executions: expected a mapping of settings",
		"{executions: {enabled: true}}\n":                                        "write the executions section as a block",
	} {
		_, rest, err := ParseConfig("x.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), want) || rest != nil {
			t.Errorf("%q: want %q, got %v", text, want, err)
		}
	}
}
