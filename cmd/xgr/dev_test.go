package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// devArgs runs xgr dev on the repository's examples, quietly, without a
// gateway or console (tests run in parallel with other listeners, and
// another xgr on the machine may hold the default ports).
func devArgs(extra ...string) []string {
	return append([]string{"--log-level", "warn", "dev", "--ostc-dir", "../../examples/ostc", "--rules-dir", "../../examples/rules",
		"--rpc-listen", "", "--listen", ""}, extra...)
}

// A finished line: "session 2 finished (ok, 8 steps, 41ms)".
var finishedLine = regexp.MustCompile(`(?m)^session (\d+(?: of 0x[0-9a-f]{4}…[0-9a-f]{4})?) finished \((\w+), (\d+) steps?, [0-9.]+(?:µs|ms|s)\)$`)

// finished maps each session label in out to its status and step count.
func finished(out string) map[string]string {
	m := map[string]string{}
	for _, f := range finishedLine.FindAllStringSubmatch(out, -1) {
		m[f[1]] = f[2] + ", " + f[3]
	}
	return m
}

// make run: the demo's steps run the XRC-137 rules deployed from
// examples/rules through the executor (A1's rule computes the total that
// Z1's rule writes into the result), the wake-up flow completes (the
// waiting session approves with the waking session's id, which reached it
// through the wake-up), Z1 settles each order with a real execution whose
// transaction is printed, and each session's end is printed as it
// happens, then a summary table.
func TestDevRunsRulesAndTheWakeFlow(t *testing.T) {
	xgrBinary(t) // the build does not count
	start := time.Now()
	out, code := runCombined(t, devArgs("--orders", "2", "--every", "10ms", "--exit-when-done")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the demo took %s; make run must stay short (≤ 15 s)", took)
	}
	for _, want := range []string{
		"with 10 orchestrations",
		"xgr dev: 18 XRC-137 rule contracts deployed from ../../examples/rules; every step runs its rule with the XRC-137 executor",
		"xgr dev: wake-up flow: session 1 (kyc_review) waits at await_order; session 1 of 0x7099…79c8 (shop_checkout), allowed by its __wakeUp list, wakes it",
		"xgr dev: registered order-2 on the demo orders contract (a trigger event: a session of nested_join_example)",
		"xgr dev: all 4 demo sessions finished",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	want := map[string]string{"1": "ok, 3", "1 of 0x7099…79c8": "ok, 1", "2": "ok, 8", "3": "ok, 8"}
	if got := finished(out); len(got) != len(want) {
		t.Errorf("finished lines %v, want %v:\n%s", got, want, out)
	} else {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("session %s finished (%s), want (%s …):\n%s", k, got[k], v, out)
			}
		}
	}
	table := out[strings.Index(out, "all 4 demo sessions finished"):]
	for _, row := range []string{
		`(?m)^SESSION +FLOW +STATUS +STEPS +DURATION +RESULT$`,
		`(?m)^1 +kyc_review +ok +3 +[0-9.]+(µs|ms|s) +KYC of alice approved for order order-kyc-1 of shop session 1$`,
		`(?m)^2 +nested_join_example +ok +8 +[0-9.]+(µs|ms|s) +order order-1: 3 x 25 = 75, shipped and settled$`,
		`(?m)^3 +nested_join_example +ok +8 +[0-9.]+(µs|ms|s) +order order-2: 3 x 25 = 75, shipped and settled$`,
		`(?m)^1 of 0x7099…79c8 +shop_checkout +ok +1 +[0-9.]+(µs|ms|s) +checked out order-kyc-1; woke KYC session 1 at await_order$`,
	} {
		if !regexp.MustCompile(row).MatchString(table) {
			t.Errorf("the summary table lacks a row matching %s:\n%s", row, table)
		}
	}
	if strings.Contains(out, "join_closed") {
		t.Errorf("the timeline is printed without --timeline:\n%s", out)
	}
	// Z1 settles each order on chain: one transaction per order session,
	// printed with its hash, block, gas and status.
	if !regexp.MustCompile(`(?m)^xgr dev: settlement contract 0x[0-9a-fA-F]{40}: step Z1 of nested_join_example settles each order with settle\(total, orderId\), sent by executor 0xa0ee7a142d267c1f36714e4a8f75612f20a79720 \(dev account 9\)$`).MatchString(out) {
		t.Errorf("no settlement line:\n%s", out)
	}
	for _, session := range []string{"2", "3"} {
		settled := regexp.MustCompile(`(?m)^xgr dev: session ` + session + ` step Z1 settled on chain: tx 0x[0-9a-f]{64} in block [1-9][0-9]*, gas [1-9][0-9]*: success$`)
		if n := len(settled.FindAllString(out, -1)); n != 1 {
			t.Errorf("session %s: %d settlement transaction lines, want 1:\n%s", session, n, out)
		}
	}
}

// --outcomes keeps the scripted mode: nothing is deployed, there is no
// wake-up flow, every step plays its outcome; --timeline prints every event.
func TestDevScriptedOutcomesAndTimeline(t *testing.T) {
	out, code := runCombined(t, devArgs("--orders", "2", "--every", "10ms", "--exit-when-done", "--timeline",
		"--outcomes", "../../examples/outcomes/all_valid.json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"with 10 orchestrations", "steps play the scripted outcomes of ../../examples/outcomes/all_valid.json (--outcomes); no rules deployed",
		"registered order-2 on the demo orders contract", "join_closed", "all 2 demo sessions finished"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"rule contracts deployed", "wake-up flow", "kyc_review"} {
		if strings.Contains(out, not) {
			t.Errorf("scripted output mentions %q:\n%s", not, out)
		}
	}
	if got := finished(out); len(got) != 2 || got["1"] != "ok, 8" || got["2"] != "ok, 8" {
		t.Errorf("finished lines %v:\n%s", got, out)
	}
	if !regexp.MustCompile(`(?m)^2 +nested_join_example +ok +8 +[0-9.]+(µs|ms|s) +-$`).MatchString(out) {
		t.Errorf("the summary table lacks session 2 without a result:\n%s", out)
	}
}

// Without --exit-when-done, xgr dev still says as each session finishes,
// and prints the table when it is stopped.
func TestDevWithoutExitSaysWhenSessionsFinish(t *testing.T) {
	var out lockedOutput
	cmd := exec.Command(xgrBinary(t), devArgs("--orders", "1", "--every", "10ms")...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for len(finished(out.String())) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("no 3 finished lines within 30s:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Errorf("exit %d after SIGINT\n%s", ee.ExitCode(), out.String())
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("xgr dev did not stop within 15s of SIGINT:\n%s", out.String())
	}
	s := out.String()
	if strings.Contains(s, "demo sessions finished") {
		t.Errorf("without --exit-when-done xgr dev must keep running:\n%s", s)
	}
	if got := finished(s); got["2"] != "ok, 8" || got["1"] != "ok, 3" {
		t.Errorf("finished lines %v:\n%s", got, s)
	}
	if !regexp.MustCompile(`(?m)^SESSION +FLOW +STATUS +STEPS +DURATION +RESULT\n1 +kyc_review +ok`).MatchString(s) {
		t.Errorf("no summary table after SIGINT:\n%s", s)
	}
}

// Everything the flags name is checked before anything starts: exit 2
// with what is wrong, where, and what to do instead.
func TestDevChecksItsRulesAtStart(t *testing.T) {
	ostc := t.TempDir()
	rules := t.TempDir()
	for name, text := range map[string]string{
		filepath.Join(ostc, "flow.json"):    `{"id": "flow", "structure": {"A1": {"rule": "${addr:A}", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "0x...B"}}}`,
		filepath.Join(rules, "A.json"):      `{"payload": {}, "rules": ["1 == 1"], "onValid": {"payload": {"x": 1}}}`,
		filepath.Join(rules, "broken.json"): `{"payload": {}, "rules": ["[x] >"]}`,
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"--log-level", "warn", "dev", "--ostc-dir", ostc, "--flow", "flow", "--rpc-listen", "", "--listen", "", "--exit-when-done"}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--rules-dir", rules}, []string{`dev: flow: no rule file in --rules-dir ` + rules + ` for step(s) B1 (rule "0x...B")`, "--outcomes FILE"}},
		{[]string{"--rules-dir", filepath.Join(rules, "nope")}, []string{"dev: --rules-dir: rule directory:", "--outcomes FILE"}},
		{[]string{"--rules-dir", rules, "--wake-flow"}, []string{"dev: --wake-flow needs the orchestrations kyc_review and shop_checkout in --ostc-dir " + ostc}},
		{[]string{"--outcomes", "../../examples/outcomes/all_valid.json", "--wake-flow"}, []string{"dev: --wake-flow runs XRC-137 rules", "does not go with --outcomes"}},
		{[]string{"--outcomes", "../../examples/outcomes/all_valid.json", "--orders", "-1"}, []string{"dev: --orders -1: want 0 (none) or more"}},
	} {
		out, code := runCombined(t, append(base, tc.args...)...)
		for _, want := range tc.want {
			if code != 2 || !strings.Contains(out, want) {
				t.Errorf("%v: exit %d, want 2 with %q:\n%s", tc.args, code, want, out)
			}
		}
		if strings.Contains(out, "xgr dev: chain") {
			t.Errorf("%v: started before refusing:\n%s", tc.args, out)
		}
	}

	// An invalid rule document is named with its problems.
	if err := os.WriteFile(filepath.Join(rules, "rules.json"), []byte(`{"0x...B": "broken.json"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCombined(t, append(base, "--rules-dir", rules)...)
	if code != 2 || !strings.Contains(out, `dev: flow: step B1: rule "0x...B" (`+filepath.Join(rules, "broken.json")+`) is not a valid rule document:`) {
		t.Errorf("broken rule: exit %d\n%s", code, out)
	}

	// Without the wake-up flow's orchestrations, and without asking for
	// it, the demo runs and says there is none.
	if err := os.WriteFile(filepath.Join(rules, "rules.json"), []byte(`{"0x...B": "A.json"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = runCombined(t, append(base, "--rules-dir", rules, "--orders", "1", "--every", "10ms")...)
	if code != 0 || !strings.Contains(out, "xgr dev: no wake-up flow: --ostc-dir "+ostc+" has no kyc_review and shop_checkout") ||
		finished(out)["1"] != "ok, 2" || !strings.Contains(out, "xgr dev: 1 XRC-137 rule contracts deployed") {
		t.Errorf("without the wake-up flow: exit %d\n%s", code, out)
	}
}

// lockedOutput collects a process's output while the test reads it.
type lockedOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedOutput) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
