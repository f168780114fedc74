package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/execution"
)

// xgr executions policy shows the policy's limits, marks targets: any
// and functions: any as DANGER (exit 1), and refuses an invalid section
// (exit 2) naming file:line:column.
func TestExecutionsPolicyCommand(t *testing.T) {
	listed := writeFile(t, "xgr.yaml", `executions:
  enabled: true
  targets:
    - address: 0x00000000000000000000000000000000000000a1
      functions: ["latestPrice(uint256,int256)"]
  maxSpendPerOwnerPerDay: 0.5 ether
`)
	out, code := run(t, "executions", "policy", "--config", listed)
	if code != 0 || strings.Contains(out, "DANGER") || !strings.Contains(out, "functions latestPrice(uint256,int256); no plain transfer; no value") ||
		!strings.Contains(out, "maxSpendPerOwnerPerDay   500000000000000000 wei") || !strings.Contains(out, "maxSessionGas            10000000 gas per session") {
		t.Errorf("listed: exit %d\n%s", code, out)
	}

	anyFile := writeFile(t, "any.yaml", "executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n")
	out, code = run(t, "executions", "policy", "--config", anyFile, "--json")
	var v execution.PolicyView
	if code != 1 || json.Unmarshal([]byte(out), &v) != nil || !v.AnyTarget || len(v.Dangers) != 1 || !strings.Contains(v.Dangers[0], "targets: any") ||
		v.ValueMaxPerSession != "0" || v.SpendBoundPerOwnerPerDay != "500000000000000000000" {
		t.Errorf("any: exit %d %+v\n%s", code, v, out)
	}
	out, code = run(t, "executions", "policy", "--config", anyFile)
	if code != 1 || !strings.HasPrefix(out, "DANGER  targets: any") {
		t.Errorf("any, text: exit %d\n%s", code, out)
	}

	bad := writeFile(t, "bad.yaml", "executions:\n  targets: any\n")
	out, code = run(t, "executions", "policy", "--config", bad)
	if code != 2 || !strings.Contains(out, "bad.yaml:2:12: executions.targets: targets: any lets every session owner") {
		t.Errorf("any without the setting: exit %d\n%s", code, out)
	}
	// Without --config: the defaults, nothing allowed.
	out, code = run(t, "executions", "policy")
	if code != 0 || !strings.Contains(out, "targets                  none") || !strings.Contains(out, "value.maxPerSession      0 wei") {
		t.Errorf("defaults: exit %d\n%s", code, out)
	}
}
