package reactor

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// outcome of one producer in the exhaustive model.
type outcome uint8

const (
	outValid outcome = iota
	outInvalid
	outAborted
)

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

func noReach(string, string) bool { return false }

// Every delivery order of joins with 1 to 4 producers, for every combination
// of `when` per input, producer outcome, k (so every mode) and policy: a
// satisfiable join is never aborted and closes exactly when its k-th
// matching piece arrives; an unsatisfiable one aborts exactly when
// got + live producers drops below k; after closing everything is ignored;
// the merge follows `from` order; kill aborts the waiting members only.
func TestJoinEveryOrder(t *testing.T) {
	whens := []registry.When{registry.WhenValid, registry.WhenInvalid, registry.WhenAny}
	checked := 0
	for n := 1; n <= 4; n++ {
		perms := permutations(n)
		combos := 1
		for i := 0; i < n; i++ {
			combos *= 9 // 3 whens × 3 outcomes
		}
		for c := 0; c < combos; c++ {
			from := make([]registry.From, n)
			outs := make([]outcome, n)
			x := c
			for i := 0; i < n; i++ {
				from[i] = registry.From{Node: fmt.Sprintf("P%d", i), When: whens[x%3]}
				outs[i] = outcome((x / 3) % 3)
				x /= 9
			}
			matching := 0
			for i := 0; i < n; i++ {
				if outs[i] != outAborted && from[i].When.Accepts(outs[i] == outValid) {
					matching++
				}
			}
			for k := 1; k <= n; k++ {
				for _, order := range perms {
					checkOrder(t, from, outs, k, order, matching)
					checked++
				}
			}
		}
	}
	if checked != 9*1*1+81*2*2+729*3*6+6561*4*24 {
		t.Fatalf("checked %d sequences", checked)
	}
}

// checkOrder plays one finishing order; each decision is taken under both
// policies (they differ only in what is killed).
func checkOrder(t *testing.T, from []registry.From, outs []outcome, k int, order []int, matching int) {
	n := len(from)
	s := JoinState{From: from, K: k}
	live := make([]Member, n)
	for i := range live {
		// Members with an odd index are running, the others waiting.
		live[i] = Member{Pid: pids[i], Step: from[i].Node, Running: i%2 == 1}
	}
	got := 0
	closedAt := -1
	var verdict Verdict
	for pos, i := range order {
		// Producer i finishes: it leaves the live set, then delivers.
		for j, m := range live {
			if m.Step == from[i].Node {
				live = append(live[:j:j], live[j+1:]...)
				break
			}
		}
		f := Finished{Pid: pids[i], FromStep: from[i].Node, Aborted: outs[i] == outAborted, Valid: outs[i] == outValid, Payload: payloads[i]}
		var res DeliveryResult
		s, res = Deliver(s, f)
		if closedAt >= 0 {
			if res != IgnoredClosed {
				t.Fatalf("delivery after close: %v", res)
			}
			continue
		}
		match := outs[i] != outAborted && from[i].When.Accepts(outs[i] == outValid)
		switch {
		case match && res != Delivered, outs[i] == outAborted && res != Failed, !match && outs[i] != outAborted && res != IgnoredWhen:
			t.Fatalf("from %v outs %v: producer %d gave %v", from, outs, i, res)
		}
		if match {
			got++
		}
		s.Policy = registry.PolicyDrain
		drain := Decide(s, live, noReach)
		s.Policy = registry.PolicyKill
		d := Decide(s, live, noReach)
		if drain.Verdict != d.Verdict || drain.Kill != nil || !reflect.DeepEqual(drain.Merged, d.Merged) {
			t.Fatalf("policies disagree beyond the kill list: %+v vs %+v", drain, d)
		}
		var want Verdict
		switch {
		case got >= k:
			want = Satisfied
		case got+len(live) < k:
			want = Unfulfillable
		}
		if d.Verdict != want {
			t.Fatalf("from %v outs %v k=%d order %v pos %d: verdict %v, want %v", from, outs, k, order, pos, d.Verdict, want)
		}
		if want == Open {
			if d.Kill != nil {
				t.Fatalf("an open join kills %v", d.Kill)
			}
			continue
		}
		closedAt, verdict = pos, want
		s.Closed = true
		var wantKill []string
		for _, m := range live {
			if !m.Running {
				wantKill = append(wantKill, m.Pid)
			}
		}
		if !reflect.DeepEqual(d.Kill, wantKill) {
			t.Fatalf("kill %v, want %v", d.Kill, wantKill)
		}
		if want == Satisfied {
			merged := map[string]any{}
			for j := range from {
				if p, ok := s.Inbox[from[j].Node]; ok {
					merged["v"] = p["v"]
					merged[fmt.Sprintf("k%d", j)] = true
				}
			}
			if !reflect.DeepEqual(d.Merged, merged) {
				t.Fatalf("merged %v, want %v", d.Merged, merged)
			}
		}
	}
	if matching >= k && verdict != Satisfied || matching < k && verdict != Unfulfillable {
		t.Fatalf("from %v outs %v k=%d order %v: ended %v with %d matching", from, outs, k, order, verdict, matching)
	}
}

var (
	pids     = []string{"1:2", "1:3", "1:4", "1:5"}
	payloads = []map[string]any{{"v": 0, "k0": true}, {"v": 1, "k1": true}, {"v": 2, "k2": true}, {"v": 3, "k3": true}}
)

func TestDeliverGuards(t *testing.T) {
	s := JoinState{From: []registry.From{{Node: "B1", When: registry.WhenValid}, {Node: "C1"}}, K: 2}
	s2, r := Deliver(s, Finished{FromStep: "X1", Valid: true})
	if r != IgnoredNotExpected || len(s2.Inbox) != 0 {
		t.Errorf("unexpected step: %v", r)
	}
	s2, r = Deliver(s, Finished{FromStep: "B1", Aborted: true})
	if r != Failed || s2.Fail["B1"] != "aborted" || s.Fail != nil {
		t.Errorf("failure: %v %v (input must stay unchanged: %v)", r, s2.Fail, s.Fail)
	}
	// A later success of the same step (a backloop) clears the failure.
	s3, r := Deliver(s2, Finished{FromStep: "B1", Valid: true, Payload: map[string]any{"a": 1}})
	if r != Delivered || len(s3.Fail) != 0 || s3.Inbox["B1"]["_from"] != "B1" || s3.Inbox["B1"]["_when"] != "valid" || s3.Inbox["B1"]["a"] != 1 {
		t.Errorf("delivery: %v %+v", r, s3)
	}
	if _, r = Deliver(s3, Finished{FromStep: "B1", Valid: true}); r != IgnoredDuplicate {
		t.Errorf("second delivery of B1: %v", r)
	}
	if _, r = Deliver(s3, Finished{FromStep: "B1", Aborted: true}); r != IgnoredDuplicate {
		t.Errorf("failure after delivery: %v", r)
	}
}

// Seed 001 §6.1: ANY + drain, D1 delivers invalid where valid is expected.
// With a live producer that can reach D1 again the join stays open; without
// one (no backloop) it aborts as soon as D1 finishes.
func TestSeed001Example61(t *testing.T) {
	s := JoinState{From: []registry.From{{Node: "D1", When: registry.WhenValid}}, K: 1}
	s, r := Deliver(s, Finished{FromStep: "D1", Valid: false})
	if r != IgnoredWhen {
		t.Fatalf("D1 invalid: %v", r)
	}
	if d := Decide(s, nil, noReach); d.Verdict != Unfulfillable {
		t.Errorf("without a backloop: %v, want unfulfillable", d.Verdict)
	}
	backloop := func(from, to string) bool { return from == "D1" && to == "D1" }
	if d := Decide(s, []Member{{Pid: "1:4", Step: "D1"}}, backloop); d.Verdict != Open || !reflect.DeepEqual(d.Potential, []string{"D1"}) {
		t.Errorf("with a backloop: %+v, want open with D1 potential", d)
	}
}

func TestMergeAndPayloadFlow(t *testing.T) {
	s := JoinState{From: []registry.From{{Node: "A"}, {Node: "B"}}, K: 2, Inbox: map[string]Piece{
		"B": {"x": 2, "b": true, "_from": "B", "_when": "valid"},
		"A": {"x": 1, "a": true, "_from": "A", "_when": "invalid"},
	}}
	if got, want := Merge(s), map[string]any{"x": 2, "a": true, "b": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v, want %v (later from entries win)", got, want)
	}
	next := NextPayload(map[string]any{"a": 1, "b": 1}, map[string]any{"b": 2, "_engine": 3})
	if !reflect.DeepEqual(next, map[string]any{"a": 1, "b": 2}) {
		t.Errorf("NextPayload = %v", next)
	}
	if string(MarshalPayload(nil)) != "{}" {
		t.Errorf("nil payload")
	}
}

// A join keeps numbers exact: pending deliveries, the stored inbox, the
// merged payload and scripted outcomes hold json.Number, never float64.
func TestJoinKeepsNumbersExact(t *testing.T) {
	const big, dec = "9007199254740993", "0.10000000000000000001"
	target := joinstore.Process{Iter: 2, Pid: "1:2", Join: &joinstore.JoinTarget{
		From: []registry.From{{Node: "B1", When: registry.WhenValid}, {Node: "C1"}}, K: 2, Fail: json.RawMessage("{}"),
		Inbox: json.RawMessage(`{"B1":{"big":` + big + `,"_from":"B1","_when":"valid"}}`)}}
	v := joinstore.JoinView{Root: joinstore.Root{Owner: owner, RootPid: 1}, Target: 2, Members: map[int64]string{}, Proc: target,
		Pending: []joinstore.Delivery{{Pid: "1:4", From: "C1", Payload: json.RawMessage(`{"dec":` + dec + `}`)}}}
	a, _, err := DecideJoin(v, noReach)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != joinstore.VerdictSatisfied || string(a.Merged) != `{"big":`+big+`,"dec":`+dec+`}` {
		t.Errorf("verdict %s, merged %s", a.Verdict, a.Merged)
	}
	if !strings.Contains(string(a.Inbox), `"big":`+big) || !strings.Contains(string(a.Inbox), `"dec":`+dec) {
		t.Errorf("inbox %s lost digits", a.Inbox)
	}
	v.Proc.Join.Inbox = a.Inbox
	s, err := JoinStateOf(v.Proc)
	if err != nil || s.Inbox["B1"]["big"] != json.Number(big) || s.Inbox["C1"]["dec"] != json.Number(dec) {
		t.Errorf("JoinStateOf: %v %+v", err, s.Inbox)
	}
	x, err := ParseOutcomes([]byte(`{"B1":{"result":"valid","payload":{"big":` + big + `}},"C1":[{"result":"valid","payload":{"dec":` + dec + `}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for step, want := range map[string]string{"B1": `{"big":` + big + `}`, "C1": `{"dec":` + dec + `}`} {
		r, err := x.Execute(context.Background(), Execution{Step: &registry.Step{ID: step}})
		if err != nil || string(MarshalPayload(r.Output)) != want {
			t.Errorf("scripted %s output %s (%v), want %s", step, MarshalPayload(r.Output), err, want)
		}
	}
}
