package main

import (
	"encoding/json"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/testenv"
)

// ruleDir writes a rule directory: name -> content.
func ruleDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// summaryOf parses the last line of simulate --json output.
func summaryOf(t *testing.T, out string) reactor.Summary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum reactor.Summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last line is not the summary: %v\n%s", err, lines[len(lines)-1])
	}
	return sum
}

// payloadOf decodes a process's payload.
func payloadOf(t *testing.T, p reactor.ProcessSummary) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.Payload, &m); err != nil {
		t.Fatalf("%s payload %s: %v", p.Pid, p.Payload, err)
	}
	return m
}

// IterationOfPi as published, run for 1,000 iterations through the real
// store and reactor with its rule from a file map, waits overridden to 0.
func TestSimulateIterationOfPiWithRuleFiles(t *testing.T) {
	ostc := filepath.Join(fixtures, "IterationOfPi/XRC729Json/IterationofPiOSTC.json")
	raw, err := os.ReadFile(filepath.Join(fixtures, "IterationOfPi/XRC137Json/Iterationstep.json"))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	start := writeFile(t, "p0.json", `{"Iter": 0, "S": 0, "Pi": 0}`)

	// The published rule is truncated: simulate refuses it before anything runs.
	broken := ruleDir(t, map[string]string{"Iterationstep-Addr.json": string(raw)})
	out, code := run(t, "simulate", ostc, "--rules", broken, "--payload", start, "--max-steps", "3")
	want := filepath.Join(broken, "Iterationstep-Addr.json") + `:21:4: error: broken JSON: unexpected end of input`
	if code != 2 || !strings.Contains(out, `step PiIterationStep: rule "<Iterationstep-Addr>"`) || !strings.Contains(out, want) {
		t.Fatalf("truncated rule: exit %d\n%s", code, out)
	}

	// Repaired (the missing brace appended here), mapped through rules.json.
	dir := ruleDir(t, map[string]string{
		"rules.json":         `{"<Iterationstep-Addr>": "Iterationstep.json"}`,
		"Iterationstep.json": string(raw) + "}",
	})
	const n = 1000
	out, code = run(t, "simulate", ostc, "--rules", dir, "--payload", start, "--wait-override", "0", "--max-steps", "1000", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out[max(0, len(out)-2000):])
	}
	sum := summaryOf(t, out)
	if len(sum.Processes) != n+1 || sum.Stopped != "stopped after 1000 executed steps (--max-steps 1000); 1 live process(es) not run" {
		t.Fatalf("%d processes, stopped %q", len(sum.Processes), sum.Stopped)
	}
	for _, p := range sum.Processes[:n] {
		if p.Status != "done" || p.Valid == nil || !*p.Valid {
			t.Fatalf("process %+v", p)
		}
	}
	next := sum.Processes[n]
	if next.Status != "waiting" || next.Pid != "1:1001" {
		t.Fatalf("the unrun iteration: %+v", next)
	}
	got := payloadOf(t, next)
	partial := func(terms int) float64 {
		s := 0.0
		for k := 0; k < terms; k++ {
			s += math.Pow(-1, float64(k)) / (2*float64(k) + 1)
		}
		return s
	}
	// After n steps S holds n terms; Pi was computed from the S of n-1 terms.
	if got["Iter"] != float64(n) {
		t.Errorf("Iter = %v, want %d", got["Iter"], n)
	}
	if s := got["S"].(float64); math.Abs(s-partial(n)) > 1e-12 {
		t.Errorf("S = %.15f, Leibniz partial sum of %d terms %.15f", s, n, partial(n))
	}
	pi := got["Pi"].(float64)
	if math.Abs(pi-4*partial(n-1)) > 1e-12 {
		t.Errorf("Pi = %.15f, 4 x Leibniz partial sum of %d terms = %.15f", pi, n-1, 4*partial(n-1))
	}
	if math.Abs(pi-math.Pi) > 2.0/n {
		t.Errorf("Pi = %.15f is further than %g from pi", pi, 2.0/n)
	}
	// waitSec 3600 was overridden: the thousand steps took real seconds, not hours.
	var last struct {
		T float64 `json:"t"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-2]), &last); err != nil || last.T > 120 {
		t.Errorf("last event at %vs (%v): the waits were not overridden", last.T, err)
	}
}

// Steps with a rule run it; the others fall back to --outcomes; without
// outcomes the start refuses the first one (rule-unresolved, exit 1, as
// every front door refuses a reference the runtime cannot run).
func TestSimulateRulesWithOutcomesFallback(t *testing.T) {
	f := "../../examples/ostc/minimal_join.json" // rules "0x...A", "0x...G": neither addresses nor aliases
	ostc := writeFile(t, "flow.json", strings.ReplaceAll(string(must(os.ReadFile(f))), `"0x...G"`, `"${addr:G}"`))
	dir := ruleDir(t, map[string]string{
		"G.json": `{"payload": {"N": {"type": "int64", "default": 1}}, "rules": ["[N] > 0"], "onValid": {"payload": {"fromRule": "[N] * 10"}}}`,
	})
	out, code := run(t, "simulate", ostc, "--rules", dir, "--deterministic")
	if code != 1 || !strings.Contains(out, `orchestration "minimal_join" step A1: rule reference "0x...A" does not resolve`) ||
		!strings.Contains(out, "(rule-unresolved at structure.A1.rule)") || !strings.Contains(out, "--outcomes") {
		t.Fatalf("uncovered steps without outcomes: exit %d\n%s", code, out)
	}
	outcomes := writeFile(t, "o.json", `{"default": {"result": "valid"}, "H1": {"result": "invalid"}}`)
	out, code = run(t, "simulate", ostc, "--rules", dir, "--outcomes", outcomes, "--deterministic", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	sum := summaryOf(t, out)
	if len(sum.Joins) != 1 || sum.Joins[0].Status != "closed" || strings.Join(sum.Joins[0].Got, ",") != "G1" || sum.Joins[0].Payload["fromRule"] != float64(10) {
		t.Errorf("the join must close on G1's rule output: %+v", sum.Joins)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestSimulateRuleFlagErrors(t *testing.T) {
	f := "../../examples/ostc/minimal_join.json"
	o := writeFile(t, "o.json", `{"default": {"result": "valid"}}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", f}, "give --outcomes FILE, or --rules DIR / --rpc URL"},
		{[]string{"simulate", f, "--rules", filepath.Join(t.TempDir(), "none")}, "--rules: rule directory"},
		{[]string{"simulate", f, "--outcomes", o, "--max-steps", "-1"}, "--max-steps -1"},
		{[]string{"simulate", f, "--outcomes", o, "--wait-override", "-2"}, "--wait-override -2"},
		{[]string{"simulate", f, "--rules", t.TempDir(), "--rpc-backend", "nameonly"}, `--rpc-backend "nameonly": want NAME=URL`},
		{[]string{"simulate", f, "--rules", t.TempDir(), "--allow-host", "a=b=c"}, "--allow-host"},
	}
	for _, c := range cases {
		if out, code := run(t, c.args...); code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.args, code, c.want, out)
		}
	}
	// A node that does not answer is a failure, as in every command.
	if out, code := run(t, "simulate", f, "--rpc", "http://127.0.0.1:1"); code != 1 || !strings.Contains(out, "--rpc: node http://127.0.0.1:1 does not answer") {
		t.Errorf("an unreachable --rpc: exit %d, want 1\n%s", code, out)
	}
}

// A session whose steps' rules live in XRC-137 contracts on anvil: one
// named by address, one by a placeholder mapped in rules.json; the first
// reads an ERC-20-like balance.
func TestSimulateRulesFromContractsOnAnvil(t *testing.T) {
	a := testenv.StartAnvil(t)
	tok := testenv.DeployTestToken(t, a, "Anvil Token", big.NewInt(1_000_000))
	tok.Transfer(t, 0, a.Address(1), big.NewInt(1234))
	checkDoc := `{"payload": {"Holder": {"type": "address"},
  "Min": {"type": "uint256", "default": "1000"}},
  "contractReads": [{"to": "` + tok.Address.Hex() + `", "function": "balanceOf(address)", "args": [{"type": "address", "value": "[Holder]"}],
    "saveAs": {"0": {"key": "Balance", "type": "uint256"}}}],
  "rules": ["u256([Balance]) >= u256([Min])"],
  "onValid": {"payload": {"Balance": "[Balance]", "Checked": true}},
  "onInvalid": {"payload": {"Balance": "[Balance]", "Checked": false}}}`
	check, _ := testenv.DeployXRC137(t, a, checkDoc)
	report, _ := testenv.DeployXRC137(t, a, `{"payload": {"Balance": {"type": "uint256"}},
  "rules": [], "onValid": {"payload": {"Report": "balance [Balance]"}, "grants": [{"address": "[Holder]", "rights": 1}]}}`)
	ostc := writeFile(t, "flow.json", `{"id": "balance_check", "structure": {
  "Check": {"rule": "`+strings.ToLower(check.Address.Hex())+`", "onValid": {"spawns": ["Report"]}},
  "Report": {"rule": "<Report-Addr>"}}}`)
	dir := ruleDir(t, map[string]string{"rules.json": `{"<Report-Addr>": "` + report.Address.Hex() + `"}`})
	payload := writeFile(t, "in.json", `{"Holder": "`+a.Address(1).Hex()+`"}`)

	out, code := run(t, "simulate", ostc, "--rules", dir, "--rpc", a.URL, "--owner", a.Address(0).Hex(), "--payload", payload, "--deterministic", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	sum := summaryOf(t, out)
	if len(sum.Processes) != 2 || sum.Processes[1].Step != "Report" || sum.Processes[1].Status != "done" {
		t.Fatalf("processes: %+v", sum.Processes)
	}
	if got := payloadOf(t, sum.Processes[1]); got["Balance"] != "1234" || got["Checked"] != true || got["Report"] != "balance 1234" {
		t.Errorf("payload after Report: %v", got)
	}
	if !strings.Contains(out, `"detail":"valid (not performed: 1 grants)"`) {
		t.Errorf("the grant is reported as not performed:\n%s", out)
	}

	// rule eval reads through --rpc too.
	out, code = run(t, "rule", "eval", writeFile(t, "check.json", checkDoc), "--payload", payload, "--rpc", a.URL, "--json")
	if code != 0 || !strings.Contains(out, `"Balance": "1234"`) || !strings.Contains(out, `"branch": "onValid"`) {
		t.Errorf("rule eval --rpc: exit %d\n%s", code, out)
	}

	// Without --rpc the placeholder's address cannot be read.
	if out, code := run(t, "simulate", ostc, "--rules", dir, "--payload", payload); code != 2 || !strings.Contains(out, "mapped to XRC-137 "+report.Address.Hex()+", but no chain backend") {
		t.Errorf("no --rpc: exit %d\n%s", code, out)
	}
	// An encrypted rule is refused before the session starts.
	if _, err := check.SetEncrypted(t.Context(), testenv.Sender(t, a, 0), []byte("XGR1.AES.00ff"), chain.Encryption{RID: common.HexToHash("0x07"), Suite: "AES-256-GCM-1", EncDEK: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	out, code = run(t, "simulate", ostc, "--rules", dir, "--rpc", a.URL, "--owner", a.Address(0).Hex(), "--payload", payload)
	if code != 2 || !strings.Contains(out, "step Check: rule") || !strings.Contains(out, "encrypted rules (XGR1 envelopes) are not supported") {
		t.Errorf("encrypted: exit %d\n%s", code, out)
	}
}
