package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/testenv"
)

// tree is a session's outcome as both drivers must agree on it: every
// process's step, status and abort reason, every join's outcome and got
// set, independent of the iter numbers concurrency hands out.
func tree(s reactor.Summary) string {
	var lines []string
	for _, p := range s.Processes {
		lines = append(lines, fmt.Sprintf("process %s %s %s", p.Step, p.Status, p.Reason))
	}
	for _, j := range s.Joins {
		got := append([]string(nil), j.Got...)
		sort.Strings(got)
		lines = append(lines, fmt.Sprintf("join %s %s got %v", j.Step, j.Status, got))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// unfulfillableAtCreation's join waits for C1, which no producer can lead
// to: its first decision finds it unfulfillable and, with kill, ends the
// producers before they run.
const unfulfillableAtCreation = `{"id": "unf", "structure": {
  "A1": {"rule": "x", "onValid": {"spawns": ["B1"],
    "join": {"joinid": "J1", "mode": {"k": 1}, "waitonjoin": "kill", "from": [{"node": "C1"}]}}},
  "B1": {"rule": "x", "onValid": {"spawns": ["B2"]}},
  "B2": {"rule": "x"},
  "C1": {"rule": "x"},
  "J1": {"rule": "x"}}}`

// A step's delivery and its join's decision come before the spawn and
// dispatch gates (seed 001 §4.1/§4.3), under xgr run as under simulate: a
// k-of-n backloop with kill runs no extra iteration, and the producers of a
// join that is unfulfillable from its creation are aborted, not run. The
// replica's commit used to claim the children before the delivery was
// decided, so both ended differently under xgr run.
func TestRunOrdersJoinDecisionsBeforeChildren(t *testing.T) {
	cases := []struct{ name, ostc, outcomes string }{
		{"kofn backloop kill", "../../examples/ostc/kofn_backloop_kill.json", "../../examples/outcomes/all_valid.json"},
		{"unfulfillable at creation", writeFile(t, "unf.json", unfulfillableAtCreation), "../../examples/outcomes/all_valid.json"},
		{"parallel enrichment all kill", "../../examples/ostc/parallel_enrichment_all_kill.json", "../../examples/outcomes/all_valid.json"},
		{"when filter unfulfillable", "../../examples/ostc/when_filter.json", "../../examples/outcomes/when_filter_unfulfillable.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := run(t, "simulate", c.ostc, "--outcomes", c.outcomes, "--deterministic", "--json")
			if code != 0 {
				t.Fatalf("simulate: %d\n%s", code, out)
			}
			want := tree(summaryOf(t, out))

			srv := testenv.StartRedis(t)
			url := "redis://" + srv.Addr + "/0"
			if out, code := run(t, "session", "start", c.ostc, "--redis", url, "--owner", testOwner); code != 0 {
				t.Fatalf("start: %d %s", code, out)
			}
			stop := startReplica(t, "--redis", url, "--ostc", c.ostc, "--outcomes", c.outcomes, "--poll", "20ms", "--no-ui")
			defer stop()
			waitStatus(t, url, 1, "finished")
			out, _ = run(t, "session", "show", "--json", "--redis", url, "--owner", testOwner, "1")
			var v struct{ Summary reactor.Summary }
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			if got := tree(v.Summary); got != want {
				t.Fatalf("xgr run ended differently from simulate\nsimulate:\n%s\nxgr run:\n%s", want, got)
			}
		})
	}
}

// A step whose cancelSession rule holds cancels its whole session (XRC-137
// §7.3), under simulate and xgr run alike: the step aborts with the
// reason, the session is killed with it (killReason), and its other
// process is aborted instead of finishing (under xgr run it is running
// when the cancel commits: its delayMs keeps it there).
func TestCancelSessionCancelsTheSession(t *testing.T) {
	ostc := writeFile(t, "cancel.json", `{"id": "cancel", "structure": {
  "A1": {"rule": "<pass>", "onValid": {"spawns": ["B1", "C1"]}},
  "B1": {"rule": "<cancel>"},
  "C1": {"rule": "<pass>", "onValid": {"spawns": ["D1"]}},
  "D1": {"rule": "<pass>"}}}`)
	// The rule path, through simulate.
	rules := ruleDir(t, map[string]string{
		"pass.json":   `{"payload": {}, "onValid": {"payload": {}}}`,
		"cancel.json": `{"payload": {}, "rules": [{"type": "cancelSession", "expression": "1 == 1"}], "onValid": {"payload": {}}}`,
	})
	out, code := run(t, "simulate", ostc, "--rules", rules, "--deterministic", "--json")
	if code != 0 {
		t.Fatalf("simulate: %d\n%s", code, out)
	}
	if got := tree(summaryOf(t, out)); !strings.Contains(got, "cancel.json: rules[0] (cancelSession) holds: the session is cancelled") ||
		!strings.Contains(got, "process C1 aborted killed") {
		t.Fatalf("simulate did not cancel the session:\n%s", got)
	}

	// Both drivers, with scripted outcomes.
	outcomes := writeFile(t, "o.json", `{"B1": {"result": "cancel"}, "C1": {"result": "valid", "delayMs": 500}, "default": {"result": "valid"}}`)
	out, code = run(t, "simulate", ostc, "--outcomes", outcomes, "--deterministic", "--json")
	if code != 0 {
		t.Fatalf("simulate: %d\n%s", code, out)
	}
	want := tree(summaryOf(t, out))
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	if out, code := run(t, "session", "start", ostc, "--redis", url, "--owner", testOwner); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	stop := startReplica(t, "--redis", url, "--ostc", ostc, "--outcomes", outcomes, "--poll", "20ms", "--no-ui")
	defer stop()
	waitStatus(t, url, 1, "finished")
	out, _ = run(t, "session", "show", "--json", "--redis", url, "--owner", testOwner, "1")
	var v struct {
		Session map[string]any
		Summary reactor.Summary
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if got := tree(v.Summary); got != want || !strings.Contains(got, "process C1 aborted killed") {
		t.Fatalf("xgr run ended differently from simulate\nsimulate:\n%s\nxgr run:\n%s", want, got)
	}
	if r, _ := v.Session["killReason"].(string); !strings.Contains(r, "scripted cancel") {
		t.Fatalf("the session's killReason: %q", v.Session["killReason"])
	}
}
