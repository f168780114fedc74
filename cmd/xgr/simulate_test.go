package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/reactor"
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
	if len(sum.Processes) != 8 || len(sum.Joins) != 2 || sum.Joins[0].Status != "closed" || strings.Join(sum.Joins[1].Got, ",") != "P1,Q1" {
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
