package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestSimulateIsDeterministic(t *testing.T) {
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"},"A1":{"result":"valid","waitSec":30},"G1":{"result":"valid","payload":{"g":1}},"H1":{"result":"invalid"}}`)
	args := []string{"simulate", "../../examples/ostc/nested_join.json", "--outcomes", outcomes, "--deterministic", "--json"}
	first, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, first)
	}
	second, _ := run(t, args...)
	if first != second {
		t.Fatalf("two deterministic runs differ:\n%s\n---\n%s", first, second)
	}
	lines := strings.Split(strings.TrimSpace(first), "\n")
	var sum reactor.Summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last line is not the summary: %v\n%s", err, lines[len(lines)-1])
	}
	if len(sum.Processes) != 8 || len(sum.Joins) != 2 || sum.Joins[0].Status != "closed" || strings.Join(sum.Joins[1].Got, ",") != "P1,Q1" || sum.Outcome != "ok" {
		t.Errorf("summary: %+v", sum)
	}
	var ev struct {
		T    float64 `json:"t"`
		Type string  `json:"type"`
	}
	json.Unmarshal([]byte(lines[len(lines)-2]), &ev)
	if ev.Type != "executed" || ev.T != 30 {
		t.Errorf("last event %+v: A1.s waitSec 30 must show on the virtual clock", ev)
	}
	for _, want := range []string{`"type":"killed"`, `"type":"join_closed"`, `"type":"promoted"`, `"type":"spawned"`} {
		if !strings.Contains(first, want) {
			t.Errorf("timeline lacks %s", want)
		}
	}
}

func TestSimulateLeavesNothingBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	if out, code := run(t, "simulate", "../../examples/ostc/minimal_join.json", "--outcomes", outcomes, "--deterministic"); code != 0 || !strings.Contains(out, "joins:") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("simulate left %v behind", left)
	}
}

func TestSimulateUsageErrors(t *testing.T) {
	f := "../../examples/ostc/minimal_join.json"
	cases := [][]string{
		{"simulate", f},
		{"simulate", f, "--outcomes", "/nonexistent"},
		{"simulate", f, "--outcomes", writeFile(t, "bad.json", `{"A1":{"result":"perhaps"}}`)},
		{"simulate", f, "--outcomes", writeFile(t, "ok.json", `{}`), "--start", "Nope"},
	}
	for _, c := range cases {
		if out, code := run(t, c...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", c, code, out)
		}
	}
	// A step without an outcome is a hard error: the process aborts.
	out, code := run(t, "simulate", f, "--outcomes", writeFile(t, "partial.json", `{"A1":{"result":"valid"}}`), "--deterministic")
	if code != 0 || !strings.Contains(out, "no scripted outcome for step") {
		t.Errorf("partial outcomes: exit %d\n%s", code, out)
	}
}

// closedThenFails is a join over B1 and C1 (all) whose target J1 spawns Z1.
const closedThenFails = `{"id":"closed_then_fails","structure":{
  "A1":{"rule":"x","onValid":{"spawns":["B1","C1"],"join":{"joinid":"J1","mode":"all","waitonjoin":"drain","from":[{"node":"B1","when":"valid"},{"node":"C1","when":"any"}]}}},
  "B1":{"rule":"x"},"C1":{"rule":"x"},"J1":{"rule":"x","onValid":{"spawns":["Z1"]}},"Z1":{"rule":"x"}}}`

// lastSummary decodes the summary line of simulate --json with exact numbers.
func lastSummary(t *testing.T, out string) reactor.Summary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	dec := json.NewDecoder(strings.NewReader(lines[len(lines)-1]))
	dec.UseNumber()
	var sum reactor.Summary
	if err := dec.Decode(&sum); err != nil || len(sum.Joins) != 1 {
		t.Fatalf("last line is not a summary with one join (%v):\n%s", err, out)
	}
	return sum
}

// A join closes, then its target's step hard-errors: simulate reports the
// join closed with its merged payload (numbers exact) and the target
// aborted with its reason, in text and JSON; `session show` agrees. An
// unfulfillable join is still reported as unfulfillable.
func TestSimulateJoinClosedThenTargetFails(t *testing.T) {
	flow := writeFile(t, "flow.json", closedThenFails)
	payload := writeFile(t, "in.json", `{"big":9007199254740993}`)
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"},
  "B1":{"result":"valid","payload":{"b":12345678901234567890,"x":1}},
  "C1":{"result":"invalid","payload":{"x":0.10000000000000000001}},
  "J1":{"result":"error"}}`)
	args := []string{"simulate", flow, "--outcomes", outcomes, "--payload", payload, "--deterministic"}
	const merged = `{"b":12345678901234567890,"big":9007199254740993,"x":0.10000000000000000001}`

	out, code := run(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	j := lastSummary(t, out).Joins[0]
	if b, _ := json.Marshal(j.Payload); j.Status != "closed" || string(b) != merged || strings.Join(j.Got, ",") != "B1,C1" {
		t.Errorf("join: %+v (payload %s), want closed over B1,C1 with %s", j, b, merged)
	}
	if j.TargetStatus != "aborted" || !strings.Contains(j.TargetReason, "hard error") {
		t.Errorf("target: %q [%q], want aborted by a hard error", j.TargetStatus, j.TargetReason)
	}
	if o := lastSummary(t, out).Outcome; o != "failed" {
		t.Errorf("outcome %q, want failed (J1's hard error)", o)
	}

	out, code = run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	joinLine := regexp.MustCompile(`(?m)^  1:2 +J1 +closed +k=2 got \[B1 C1\] payload (\{.*\}); target aborted \[.*hard error\]$`)
	if m := joinLine.FindStringSubmatch(out); m == nil || m[1] != merged {
		t.Errorf("text summary lacks the closed join with its payload and the aborted target:\n%s", out)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "outcome: failed") {
		t.Errorf("text summary does not end with the outcome:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  1:2 +J1 +aborted .*parent 1:1 \[.*hard error\]$`).MatchString(out) {
		t.Errorf("text summary lacks J1 aborted with its reason:\n%s", out)
	}

	// B1 fails: the join can no longer be satisfied.
	failing := writeFile(t, "fail.json", `{"default":{"result":"valid"},"B1":{"result":"error"}}`)
	out, code = run(t, "simulate", flow, "--outcomes", failing, "--deterministic", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if j := lastSummary(t, out).Joins[0]; j.Status != "unfulfillable" || j.Payload != nil || j.TargetStatus != "aborted" || j.TargetReason != "unfulfillable" {
		t.Errorf("unfulfillable join: %+v", j)
	}
	out, _ = run(t, "simulate", flow, "--outcomes", failing, "--deterministic")
	if !regexp.MustCompile(`(?m)^  1:2 +J1 +unfulfillable +k=2 got \[\]; target aborted \[unfulfillable\]$`).MatchString(out) {
		t.Errorf("text summary lacks the unfulfillable join:\n%s", out)
	}

	// The same session run by a replica, through `xgr session show`
	// (simulate --redis leaves nothing in Redis to show).
	url := "redis://" + testenv.StartRedis(t).Addr + "/0"
	if out, code := run(t, "session", "start", flow, "--payload", payload, "--redis", url, "--owner", testOwner); code != 0 {
		t.Fatalf("session start: exit %d\n%s", code, out)
	}
	stop := startReplica(t, "--redis", url, "--ostc", flow, "--outcomes", outcomes, "--poll", "20ms")
	waitStatus(t, url, 1, "finished")
	stop()
	show := []string{"session", "show", "1", "--redis", url, "--owner", testOwner}
	out, _ = run(t, show...)
	if !regexp.MustCompile(`1:2 J1 aborted \[.*hard error\]  join closed k=2 `).MatchString(out) {
		t.Errorf("session show:\n%s", out)
	}
	out, _ = run(t, append(show, "--json")...)
	var shown struct{ Summary reactor.Summary }
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&shown); err != nil || len(shown.Summary.Joins) != 1 {
		t.Fatalf("session show --json: %v\n%s", err, out)
	}
	if j := shown.Summary.Joins[0]; j.Status != "closed" || j.TargetStatus != "aborted" || j.Payload["b"] != json.Number("12345678901234567890") {
		t.Errorf("session show --json join: %+v", j)
	}
}
