package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/testenv"
)

// execFlow writes a flow whose first step, Pay, executes
// settle(Amount, Ref) on target: P1 (Pay) spawns P2 on either branch.
func execFlow(t *testing.T, target string) (flow, rules string) {
	t.Helper()
	rules = ruleDir(t, map[string]string{
		"Pay.json": fmt.Sprintf(`{
  "payload": {"Amount": {"type": "int64"}, "Ref": {"type": "string"}},
  "rules": [],
  "onValid": {"payload": {"Settled": "[Amount]"},
    "execution": {"to": "%s", "function": "settle(uint256,string)", "args": [{"type": "uint256", "value": "[Amount]"}, {"type": "string", "value": "[Ref]"}]}},
  "onInvalid": {"payload": {"Refund": "[Amount]"}, "spawns": []}
}`, target),
		"Done.json": `{"payload": {}, "rules": []}`,
	})
	flow = writeFile(t, "flow.json", `{"id": "pay", "structure": {"P1": {"rule": "<Pay>", "onValid": {"spawns": ["P2"]}, "onInvalid": {"spawns": ["P2"]}}, "P2": {"rule": "<Done>"}}}`)
	return flow, rules
}

// p1 is the summary's process of step P1.
func p1(t *testing.T, sum reactor.Summary) reactor.ProcessSummary {
	t.Helper()
	for _, p := range sum.Processes {
		if p.Step == "P1" {
			return p
		}
	}
	t.Fatalf("no P1 in %+v", sum.Processes)
	return reactor.ProcessSummary{}
}

// executionOf is the "execution" object of a payload.
func executionOf(t *testing.T, payload map[string]any) map[string]any {
	t.Helper()
	x, ok := payload["execution"].(map[string]any)
	if !ok {
		t.Fatalf("no execution object in the payload %v", payload)
	}
	return x
}

// simulate --rpc without executions on previews each execution with
// eth_call: nothing lands on chain, the timeline says what would happen,
// and the step's branch follows the preview (a revert flips it).
func TestSimulatePreviewsExecutions(t *testing.T) {
	a := testenv.StartAnvil(t)
	target := testenv.DeployExecTarget(t, a)
	flow, rules := execFlow(t, target.Address.Hex())

	out, code := run(t, "simulate", flow, "--rules", rules, "--rpc", a.URL, "--deterministic", "--json",
		"--payload", writeFile(t, "ok.json", `{"Amount": 5, "Ref": "preview-5"}`))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, `"detail":"preview: would succeed (gas `) {
		t.Errorf("no preview line in the timeline:\n%s", out)
	}
	p := p1(t, summaryOf(t, out))
	pay := payloadOf(t, p)
	if p.Valid == nil || !*p.Valid || pay["Settled"] == nil {
		t.Errorf("P1 should be valid with Settled: %+v %v", p, pay)
	}
	if x := executionOf(t, pay); x["status"] != float64(1) || x["gasUsed"].(float64) < 21000 {
		t.Errorf("preview outcome in the output: %v", x)
	}
	if n := target.Calls(t, a.Client, "preview-5"); n != 0 {
		t.Errorf("a preview sent %d transaction(s)", n)
	}

	out, code = run(t, "simulate", flow, "--rules", rules, "--rpc", a.URL, "--deterministic",
		"--payload", writeFile(t, "zero.json", `{"Amount": 0, "Ref": "preview-0"}`))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "preview: reverts: amount is zero; the step flips to invalid") {
		t.Errorf("the revert preview is not reported:\n%s", out)
	}
	if !strings.Contains(out, "P1           done     invalid") || !strings.Contains(out, "the onValid execution reverted: preview: reverted: amount is zero") {
		t.Errorf("P1 should end invalid after the previewed revert:\n%s", out)
	}

	// --executor names the would-be sender; a malformed one is a usage error.
	if out, code := run(t, "simulate", flow, "--rules", rules, "--rpc", a.URL, "--executor", "0x12",
		"--payload", writeFile(t, "ok2.json", `{"Amount": 5, "Ref": "x"}`)); code != 2 || !strings.Contains(out, `--executor "0x12"`) {
		t.Errorf("bad --executor: exit %d\n%s", code, out)
	}
	// Without --rpc executions are not performed, as before.
	out, code = run(t, "simulate", flow, "--rules", rules, "--deterministic",
		"--payload", writeFile(t, "ok3.json", `{"Amount": 5, "Ref": "norpc"}`))
	if code != 0 || strings.Contains(out, "preview:") || !strings.Contains(out, "not performed") {
		t.Errorf("without --rpc: exit %d\n%s", code, out)
	}
}

// simulate --rpc --executions with an executor key sends each execution on
// anvil, also under the virtual clock: settle lands once, the output
// carries its transaction; a revert flips the step and lands nothing.
func TestSimulatePerformsExecutions(t *testing.T) {
	a := testenv.StartAnvil(t)
	target := testenv.DeployExecTarget(t, a)
	flow, rules := execFlow(t, target.Address.Hex())
	cfg := writeFile(t, "xgr.yaml", fmt.Sprintf("executions:\n  targets: [%q]\n", target.Address.Hex()))
	t.Setenv("XGR_EXECUTOR_KEY", hexutil.Encode(crypto.FromECDSA(a.Key(1))))

	for _, clock := range [][]string{{"--deterministic"}, nil} {
		ref := fmt.Sprintf("sim-%d", len(clock))
		args := append([]string{"simulate", flow, "--rules", rules, "--rpc", a.URL, "--executions", "--config", cfg, "--exec-poll", "50ms", "--json",
			"--payload", writeFile(t, ref+".json", fmt.Sprintf(`{"Amount": 7, "Ref": %q}`, ref))}, clock...)
		out, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", clock, code, out)
		}
		if n := target.Calls(t, a.Client, ref); n != 1 {
			t.Errorf("%v: settle(%s) landed %d times, want 1\n%s", clock, ref, n, out)
		}
		x := executionOf(t, payloadOf(t, p1(t, summaryOf(t, out))))
		if x["status"] != float64(1) || x["block"].(float64) < 1 || !strings.HasPrefix(x["txHash"].(string), "0x") || x["txHash"] == "0x"+strings.Repeat("0", 64) {
			t.Errorf("%v: the output's execution: %v", clock, x)
		}
		if !strings.Contains(out, `: success"`) {
			t.Errorf("%v: no success outcome in the timeline:\n%s", clock, out)
		}
	}

	out, code := run(t, "simulate", flow, "--rules", rules, "--rpc", a.URL, "--executions", "--config", cfg, "--exec-poll", "50ms", "--deterministic",
		"--payload", writeFile(t, "zero.json", `{"Amount": 0, "Ref": "sim-zero"}`))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "reverted: amount is zero; the step flips to invalid") || !strings.Contains(out, "P1           done     invalid") {
		t.Errorf("the revert should flip P1:\n%s", out)
	}
	if n := target.Calls(t, a.Client, "sim-zero"); n != 0 {
		t.Errorf("a reverted settle counted %d", n)
	}

	// A target outside the policy is refused: nothing is sent, the step fails.
	other := writeFile(t, "other.yaml", "executions:\n  targets: [\"0x00000000000000000000000000000000000000aa\"]\n")
	out, _ = run(t, "simulate", flow, "--rules", rules, "--rpc", a.URL, "--executions", "--config", other, "--deterministic",
		"--payload", writeFile(t, "refused.json", `{"Amount": 3, "Ref": "sim-refused"}`))
	if !strings.Contains(out, "execution refused (executions.targets)") || target.Calls(t, a.Client, "sim-refused") != 0 {
		t.Errorf("policy refusal:\n%s", out)
	}
	// Executions on need --rpc.
	if out, code := run(t, "simulate", flow, "--rules", rules, "--executions", "--config", cfg,
		"--payload", writeFile(t, "x.json", `{"Amount": 3, "Ref": "x"}`)); code != 2 || !strings.Contains(out, "need --rpc") {
		t.Errorf("--executions without --rpc: exit %d\n%s", code, out)
	}
}
