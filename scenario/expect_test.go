package scenario

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
)

func ptr(b bool) *bool { return &b }

// An order session as the store shows it once it finished: receive_order,
// request_kyc, wait_for_kyc_result, fulfill_order, all valid and done.
func orderRecords() (map[string]string, []map[string]string, []HistoryEntry) {
	proc := func(iter, step, status, valid, last, updated string) map[string]string {
		return map[string]string{"pid": "1:" + iter, "resumeStep": step, "status": status, "lastEvalValid": valid, "lastStep": last, "updatedAt": updated}
	}
	procs := []map[string]string{
		proc("3", "wait_for_kyc_result", "done", "1", "wait_for_kyc_result", "1300"),
		proc("1", "receive_order", "done", "1", "receive_order", "1100"),
		proc("2", "request_kyc", "done", "1", "request_kyc", "1200"),
		proc("4", "fulfill_order", "done", "1", "fulfill_order", "1400"),
	}
	hist := []HistoryEntry{{Pid: "1:1"}, {Pid: "1:2"}, {Pid: "1:3"}, {Pid: "1:4"}}
	return map[string]string{"status": "finished"}, procs, hist
}

// records are the processes of stored records' fields.
// sessionMeta types a meta hash as the store reads it.
func sessionMeta(t *testing.T, fields map[string]string) joinstore.SessionMeta {
	t.Helper()
	m, err := joinstore.ParseSessionMeta(fields)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func records(t *testing.T, fields []map[string]string) []joinstore.Process {
	t.Helper()
	out := make([]joinstore.Process, len(fields))
	for i, f := range fields {
		p, err := joinstore.ParseProcess(f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}

func TestObservedFrom(t *testing.T) {
	meta, procs, hist := orderRecords()
	procs = append(procs, map[string]string{"pid": "1:5", "resumeStep": "late", "status": "waiting", "updatedAt": "1500"})
	o := ObservedFrom(sessionMeta(t, meta), records(t, procs), hist, map[string]Evaluation{"1:2": {Input: map[string]any{"orderId": "ORD-1"}}})
	if !o.Finished || len(o.Procs) != 5 {
		t.Fatalf("observed: %+v", o)
	}
	for i, p := range o.Procs {
		if p.Iter != int64(i+1) {
			t.Fatalf("not in pid order: %+v", o.Procs)
		}
	}
	p := o.Procs[1]
	if p.Step != "request_kyc" || p.Valid == nil || !*p.Valid || !p.Executed || p.Commit != 1 || !p.Recorded || p.Input["orderId"] != "ORD-1" {
		t.Errorf("request_kyc: %+v", p)
	}
	if q := o.Procs[4]; q.Executed || q.Valid != nil || q.Commit != -1 || q.Recorded {
		t.Errorf("a waiting process: %+v", q)
	}
}

func TestOccurrenceFinalReached(t *testing.T) {
	o := &Observed{Procs: []Proc{
		{Pid: "1:1", Iter: 1, Step: "A", Status: "done", Executed: true, Updated: 10, Commit: 0},
		{Pid: "1:2", Iter: 2, Step: "B", Status: "done", Executed: true, Updated: 30, Commit: 2},
		{Pid: "1:3", Iter: 3, Step: "B", Status: "aborted", Executed: false, Updated: 30, Commit: -1},
		{Pid: "1:4", Iter: 4, Step: "C", Status: "done", Executed: true, Updated: 30, Commit: 1},
	}, Finished: true}
	if p := o.Occurrence("B", 2); p == nil || p.Pid != "1:3" {
		t.Errorf("B #2: %+v", p)
	}
	if o.Occurrence("B", 3) != nil || o.Occurrence("Z", 1) != nil {
		t.Error("occurrences that do not exist")
	}
	// Same update time: the later commit wins over the higher pid; a
	// process that never committed loses to one that did.
	if f := o.Final(); f.Pid != "1:2" {
		t.Errorf("final of a finished session: %+v", f)
	}
	for _, tc := range []struct {
		step, status, pid string
	}{
		{"B", "waiting", "1:2"}, // created waiting: every process reached it
		{"B", "", "1:2"},
		{"B", "running", "1:2"},
		{"B", "done", "1:2"},
		{"B", "aborted", "1:3"},
		{"A", "aborted", ""},
		{"Z", "waiting", ""},
	} {
		p := o.Reached(tc.step, tc.status)
		if (p == nil && tc.pid != "") || (p != nil && p.Pid != tc.pid) {
			t.Errorf("Reached(%s, %s) = %+v, want %s", tc.step, tc.status, p, tc.pid)
		}
	}
	// An aborted process that never ran did not reach running.
	o2 := &Observed{Procs: []Proc{{Pid: "1:1", Iter: 1, Step: "A", Status: "aborted"}}}
	if o2.Reached("A", "running") != nil {
		t.Error("killed before running counts as running")
	}
	// While live, the newest live process stands for the session.
	live := &Observed{Procs: []Proc{
		{Pid: "1:1", Iter: 1, Step: "A", Status: "done", Updated: 50},
		{Pid: "1:2", Iter: 2, Step: "W", Status: "waiting", Updated: 10},
		{Pid: "1:3", Iter: 3, Step: "X", Status: "running", Updated: 20},
		{Pid: "1:4", Iter: 4, Step: "Y", Status: "done", Updated: 60},
	}}
	if f := live.Final(); f.Pid != "1:3" {
		t.Errorf("final of a live session: %+v", f)
	}
	if (&Observed{}).Final() != nil {
		t.Error("final of an empty session")
	}
}

func TestEvaluateKYCOrderAssert(t *testing.T) {
	f, err := Parse(readExample(t, kycFile))
	if err != nil {
		t.Fatal(err)
	}
	exp := f.Scenarios[0].Steps[7].Expect
	meta, procs, hist := orderRecords()
	checks := Evaluate(exp, ObservedFrom(sessionMeta(t, meta), records(t, procs), hist, nil))
	if len(checks) != 7 {
		t.Fatalf("%d checks: %+v", len(checks), checks)
	}
	for _, c := range checks {
		if !c.Passed {
			t.Errorf("failed: %+v", c)
		}
	}
	if checks[6].Name != "final step" || checks[6].Actual != "fulfill_order (1:4 done)" || checks[5].Actual != "done (1:4 fulfill_order)" {
		t.Errorf("final checks: %+v %+v", checks[5], checks[6])
	}
	// The order cancelled instead: request_kyc invalid, cancel_order ran.
	procs[2]["lastEvalValid"] = "0"
	procs[3] = map[string]string{"pid": "1:3", "resumeStep": "cancel_order", "status": "done", "lastEvalValid": "1", "lastStep": "cancel_order", "updatedAt": "1400"}
	procs[0] = map[string]string{"pid": "1:4", "resumeStep": "other", "status": "done", "lastStep": "other", "updatedAt": "1000"}
	checks = Evaluate(exp, ObservedFrom(sessionMeta(t, meta), records(t, procs), hist, nil))
	byName := map[string]Check{}
	for _, c := range checks {
		byName[c.Name] = c
	}
	if c := byName["timeline request_kyc #1"]; c.Passed || len(c.Details) != 3 || c.Details[1].Name != "valid" || c.Details[1].Passed || c.Details[1].Actual != "invalid" {
		t.Errorf("request_kyc: %+v", c)
	}
	if c := byName["timeline fulfill_order #1"]; c.Passed || c.Actual != "no process #1 of fulfill_order" || c.Details[0].Expected != "true" || c.Details[0].Actual != "false" {
		t.Errorf("fulfill_order: %+v", c)
	}
	if c := byName["timeline cancel_order #1"]; c.Passed || c.Expected != "cancel_order #1 does not exist" {
		t.Errorf("cancel_order: %+v", c)
	}
	if c := byName["final step"]; c.Passed || c.Expected != "fulfill_order" || !strings.HasPrefix(c.Actual, "cancel_order") {
		t.Errorf("final step: %+v", c)
	}
}

func TestEvaluateGroupsAndValues(t *testing.T) {
	o := &Observed{Finished: true, Procs: []Proc{
		{Pid: "1:1", Iter: 1, Step: "A1", Status: "done", Valid: ptr(true), Executed: true, Recorded: true,
			Input: map[string]any{"AmountA": float64(50), "Name": "Anna Beispiel", "Big": "123456789012345678901234567890"},
			API:   map[string]any{"Ok": true}, Reads: map[string]any{"readValue": "42"}},
		{Pid: "1:2", Iter: 2, Step: "B1", Status: "waiting"},
	}}
	a := func(field, op, vt string, v any) *Assertion {
		return &Assertion{Field: field, Op: op, ValueType: vt, Value: v}
	}
	alt := func(step string, f func(*Alt)) *Alt {
		x := &Alt{StepID: step, Occurrence: 1, Exist: true}
		if f != nil {
			f(x)
		}
		return x
	}
	for _, tc := range []struct {
		name string
		g    *Group
		pass bool
	}{
		{"values all hold", &Group{Mode: AllOf, Alts: []*Alt{alt("A1", func(x *Alt) {
			x.Valid = ptr(true)
			x.Status = "done"
			x.Input = []*Assertion{a("AmountA", OpEq, "", json.Number("50")), a("Name", OpStartsWith, "", "Anna"), a("Big", OpGt, "uint256", json.Number("1e29")), a("Missing", OpMissing, "", nil)}
			x.API = []*Assertion{a("Ok", OpEq, "bool", true)}
			x.Reads = []*Assertion{a("readValue", OpEq, "int256", json.Number("42"))}
		})}}, true},
		{"a value differs", &Group{Mode: AllOf, Alts: []*Alt{alt("A1", func(x *Alt) {
			x.Reads = []*Assertion{a("readValue", OpEq, "int256", json.Number("41"))}
		})}}, false},
		{"values of a step that did not run", &Group{Mode: AllOf, Alts: []*Alt{alt("B1", func(x *Alt) {
			x.Input = []*Assertion{a("AmountA", OpExists, "", nil)}
		})}}, false},
		{"not evaluated is not valid", &Group{Mode: AllOf, Alts: []*Alt{alt("B1", func(x *Alt) { x.Valid = ptr(true) })}}, false},
		{"waiting status", &Group{Mode: AllOf, Alts: []*Alt{alt("B1", func(x *Alt) { x.Status = "waiting" })}}, true},
		{"anyOf: one alternative holds", &Group{Mode: AnyOf, Alts: []*Alt{alt("C1", nil), alt("A1", nil)}}, true},
		{"allOf: one alternative fails", &Group{Mode: AllOf, Alts: []*Alt{alt("C1", nil), alt("A1", nil)}}, false},
		{"anyOf: none holds", &Group{Mode: AnyOf, Alts: []*Alt{alt("C1", nil), alt("A1", func(x *Alt) { x.Occurrence = 2 })}}, false},
		{"exist false holds", &Group{Mode: AllOf, Alts: []*Alt{alt("C1", func(x *Alt) { x.Exist = false; x.Valid = ptr(true) })}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.g.Label = tc.name
			c := evalGroup(tc.g, o)
			if c.Passed != tc.pass {
				t.Fatalf("passed %v, want %v: %+v", c.Passed, tc.pass, c)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		op, vt    string
		want, got any
		present   bool
		ok        bool
	}{
		{OpEq, "", json.Number("50"), float64(50), true, true},
		{OpEq, "", json.Number("50"), "50", true, true},
		{OpEq, "int64", "50", int64(50), true, true}, // editors may keep numbers as text
		{OpEq, "uint256", json.Number("115792089237316195423570985008687907853269984665640564039457584007913129639935"), "115792089237316195423570985008687907853269984665640564039457584007913129639935", true, true},
		{OpEq, "uint256", json.Number("1"), new(big.Int).SetInt64(1), true, true},
		{OpEq, "", json.Number("0.1"), float64(0.1), true, true},           // a double compares with the nearest double
		{OpEq, "", json.Number("0.1"), "0.10000000000000001", true, false}, // text is exact
		{OpEq, "int64", json.Number("50"), "fifty", true, false},
		{OpNe, "", json.Number("50"), float64(51), true, true},
		{OpEq, "bool", true, "true", true, true},
		{OpEq, "", true, true, true, true},
		{OpEq, "", false, true, true, false},
		{OpEq, "", "ORD-1", "ORD-1", true, true},
		{OpEq, "", map[string]any{"a": json.Number("1")}, map[string]any{"a": float64(1)}, true, true},
		{OpEq, "", "x", nil, false, false},
		{OpExists, "", nil, nil, false, false},
		{OpExists, "", nil, "", true, true},
		{OpMissing, "", nil, nil, false, true},
		{OpGt, "", json.Number("10"), float64(10.5), true, true},
		{OpGte, "", json.Number("10"), "10", true, true},
		{OpLt, "", json.Number("10"), int64(9), true, true},
		{OpLte, "", json.Number("10"), int64(11), true, false},
		{OpGt, "", json.Number("10"), "ten", true, false},
		{OpContains, "", "Berlin", "Musterstrasse 12, 10115 Berlin", true, true},
		{OpNotContains, "", "Berlin", "Hamburg", true, true},
		{OpEndsWith, "", "DE", "Berlin, DE", true, true},
		{OpRegex, "", `^ORD-\d+$`, "ORD-17", true, true},
		{OpRegex, "", `(`, "x", true, false},
		{OpContains, "", "1", float64(1), true, false},
	} {
		if ok, why := Compare(tc.op, tc.vt, tc.want, tc.got, tc.present); ok != tc.ok {
			t.Errorf("Compare(%s %s, want %v, got %#v) = %v (%s)", tc.op, tc.vt, tc.want, tc.got, ok, why)
		}
	}
	for op, want := range map[string]string{"=": OpEq, "!=": OpNe, ">=": OpGte, "not contains": OpNotContains, "starts_with": OpStartsWith, "Ends With": OpEndsWith} {
		if got, ok := normalizeOp(op); !ok || got != want {
			t.Errorf("normalizeOp(%q) = %q", op, got)
		}
	}
	if _, ok := normalizeOp("~="); ok {
		t.Error("unknown op accepted")
	}
}
