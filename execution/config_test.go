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
  maxSessionGas: 5000000
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
	if !c.Enabled || c.Policy.AnyTarget || len(c.Policy.Targets) != 2 || c.Policy.Targets[0].Address != want[0] || !c.Policy.Targets[0].AnyFunction || c.Policy.Targets[1].Address != want[1] || !c.Policy.Targets[1].AnyFunction ||
		c.Policy.MaxGasLimit != 500_000 || c.Policy.MaxSessionGas != 5_000_000 || c.MaxFeePerGas.String() != "100500000000" ||
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
	c, _, err = ParseConfig("x.yaml", []byte("executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n  maxFeePerGas: 7000000000\n"))
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
		"executions:\n  targets: everything\n":                                   "executions.targets: expected a list of targets",
		"executions:\n  maxGasLimit: 20000\n":                                    "executions.maxGasLimit: expected a whole number in [21000, 9007199254740991]",
		"executions:\n  maxGasLimit: 9007199254740992\n":                         "executions.maxGasLimit: expected a whole number in [21000, 9007199254740991]",
		"executions:\n  maxSessionGas: -1\n":                                     "executions.maxSessionGas: expected a whole number",
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

// The richer target form: functions, plain transfers and value per
// target, next to bare addresses; the section's value and spend caps.
func TestParseConfigTargets(t *testing.T) {
	raw := []byte(`executions:
  enabled: true
  targets:
    - 0x00000000000000000000000000000000000000a1
    - address: 0x00000000000000000000000000000000000000B2
      functions: ["settle(uint256, address)", "0xA9059CBB"]
    - address: 0x00000000000000000000000000000000000000c3
      functions: any
      plainTransfer: true
      value: {allowed: true, maxPerExecution: 0.1 ether}
  maxSpendPerOwnerPerDay: 2 ether
  maxGasPerOwnerPerDay: 50_000_000
  value:
    maxPerExecution: 50000000 gwei
    maxPerSession: 0.5 ether
    maxPerOwnerPerDay: 1000000000000000000
`)
	c, _, err := ParseConfig("x.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Policy
	if len(p.Targets) != 3 {
		t.Fatalf("targets %+v", p.Targets)
	}
	a, b, x := p.Targets[0], p.Targets[1], p.Targets[2]
	if !a.AnyFunction || a.PlainTransfer || a.Value {
		t.Errorf("bare address: %+v", a)
	}
	if b.AnyFunction || b.PlainTransfer || b.Value || len(b.Functions) != 2 || b.Functions[0].Text != "settle(uint256,address)" || b.Functions[1].Selector != [4]byte{0xa9, 0x05, 0x9c, 0xbb} {
		t.Errorf("functions: %+v", b)
	}
	if !x.AnyFunction || !x.PlainTransfer || !x.Value || x.MaxValue.String() != "100000000000000000" {
		t.Errorf("payable: %+v", x)
	}
	if p.MaxSpendPerOwnerPerDay.String() != "2000000000000000000" || p.MaxGasPerOwnerPerDay != 50_000_000 || p.Value.MaxPerExecution.String() != "50000000000000000" ||
		p.Value.MaxPerSession.String() != "500000000000000000" || p.Value.MaxPerOwnerPerDay.String() != "1000000000000000000" {
		t.Errorf("caps: %+v", p)
	}
	// Defaults: no value, no spend cap of its own, the owner's daily gas.
	d := DefaultConfig().Policy
	if d.Value.MaxPerSession != nil || d.Value.MaxPerOwnerPerDay != nil || d.MaxSpendPerOwnerPerDay != nil ||
		d.MaxGasPerOwnerPerDay != DefaultMaxGasPerOwnerPerDay || d.MaxSessionGas != DefaultMaxSessionGas || d.AnyTarget {
		t.Errorf("defaults: %+v", d)
	}
}

// Problems of the policy settings, each with file:line:column.
func TestParseConfigPolicyProblems(t *testing.T) {
	addr := "0x00000000000000000000000000000000000000a1"
	for text, want := range map[string]string{
		"executions:\n  targets: any\n":                                                                                              "x.yaml:2:12: executions.targets: targets: any lets every session owner make the executor key call any contract",
		"executions:\n  targets: any\n  allowAnyTarget: yes\n":                                                                       "x.yaml:3:19: executions.allowAnyTarget: the only value is i-understand-the-risk",
		"executions:\n  targets: [" + addr + "]\n  allowAnyTarget: i-understand-the-risk\n":                                          "x.yaml:3:19: executions.allowAnyTarget: only goes with targets: any",
		"executions:\n  defaultSessionGas: 5000000\n":                                                                                "x.yaml:2:3: executions.defaultSessionGas: renamed to maxSessionGas, and it is now a ceiling",
		"executions:\n  targets:\n    - address: " + addr + "\n":                                                                     "x.yaml:3:7: executions.targets[0].functions: missing: the target allows no call",
		"executions:\n  targets:\n    - functions: any\n":                                                                            "x.yaml:3:7: executions.targets[0].address: missing",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: [settle]}\n":                                              "x.yaml:3:73: executions.targets[0].functions[0]: function \"settle\": want a signature",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: [\"f(uint256)\", \"f(uint)\"]}\n":                         "executions.targets[0].functions[1]: f(uint256) has the selector",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: [\"0x1234\"]}\n":                                          "executions.targets[0].functions[0]: selector \"0x1234\": want 0x and 8 hex digits",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: any, color: red}\n":                                       "x.yaml:3:77: executions.targets[0].color: unknown setting \"color\" (known here: address, functions, plainTransfer, value)",
		"executions:\n  targets:\n    - {address: " + addr + ", plainTransfer: maybe}\n":                                             "executions.targets[0].plainTransfer: expected true or false",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: any, value: {allowed: true}}\n":                           "executions.targets[0].value.maxPerExecution: missing: a target that allows value caps it",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: any, value: {maxPerExecution: 1}}\n":                      "executions.targets[0].value.maxPerExecution: given while value.allowed is not true",
		"executions:\n  targets:\n    - {address: " + addr + ", functions: any, value: {allowed: true, maxPerExecution: 1 ether}}\n": "executions.targets[0].value: " + "0x00000000000000000000000000000000000000A1 allows value but executions.value.maxPerSession is not set",
		"executions:\n  targets:\n    - " + addr + "\n    - {address: " + addr + ", functions: any}\n":                               "executions.targets[1]: 0x00000000000000000000000000000000000000A1 is listed twice",
		"executions:\n  value: {maxPerSession: 1.5 wei}\n":                                                                           "x.yaml:2:26: executions.value.maxPerSession: expected an amount in wei",
		"executions:\n  value: {maxPerDay: 1 ether}\n":                                                                               "executions.value.maxPerDay: unknown setting",
		"executions:\n  value: 5\n":                                 "executions.value: expected a mapping of maxPerExecution, maxPerSession, maxPerOwnerPerDay",
		"executions:\n  maxSpendPerOwnerPerDay: -1 ether\n":         "executions.maxSpendPerOwnerPerDay: expected an amount",
		"executions:\n  maxSpendPerOwnerPerDay: 1000000001 ether\n": "executions.maxSpendPerOwnerPerDay: expected an amount",
		"executions:\n  maxGasPerOwnerPerDay: 9007199254740992\n":   "executions.maxGasPerOwnerPerDay: expected a whole number in [0, 9007199254740991]",
	} {
		_, rest, err := ParseConfig("x.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), want) || rest != nil {
			t.Errorf("%q: want %q, got %v", text, want, err)
		}
	}
	// targets: any with the setting passes (and stays marked: the policy
	// command and the start-up log show it as dangerous).
	c, _, err := ParseConfig("x.yaml", []byte("executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n"))
	if err != nil || !c.Policy.AnyTarget {
		t.Errorf("any with the setting: %+v %v", c.Policy, err)
	}
}
