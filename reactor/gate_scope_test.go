package reactor

import (
	"context"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A running member of a group whose join closed with kill finishes and
// asks for a nested join: no part of that join scope is created — neither
// its target (in the closed group) nor its producers (in the target's fresh
// group). It used to drop the target but create and run the producers.
func TestNestedJoinOfAKillClosedGroupIsGatedWhole(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "nested", "structure": {
  "A1": {"rule": "x", "onValid": {"spawns": ["P1", "P2"],
         "join": {"joinid": "J1", "mode": "any", "waitonjoin": "kill", "from": [{"node": "P1", "when": "valid"}, {"node": "P2", "when": "valid"}]}}},
  "P1": {"rule": "x"},
  "P2": {"rule": "x", "onValid": {"spawns": ["Q1", "Q2"],
         "join": {"joinid": "J2", "mode": "all", "waitonjoin": "drain", "from": [{"node": "Q1", "when": "valid"}, {"node": "Q2", "when": "valid"}]}}},
  "Q1": {"rule": "x"}, "Q2": {"rule": "x"}, "J1": {"rule": "x"}, "J2": {"rule": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	store, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
	now := time.UnixMilli(1_800_000_000_000)
	table := Table(o)
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	root := res.Root
	valid := true
	commit := func(c joinstore.Claim) joinstore.CommitResult {
		t.Helper()
		step := o.Step(c.ResumeStep)
		cm := joinstore.Commit{Status: "done", Valid: &valid, Payload: []byte(`{}`),
			Children: Children(step, false, true, Parent{Group: c.JoinGroupID, FirstChild: c.FirstChild}, []byte(`{}`), now, 0)}
		cr, err := store.Commit(ctx, c, now, cm)
		if err != nil {
			t.Fatalf("commit %s: %v", c.Pid, err)
		}
		return cr
	}
	claim := func(iters ...int64) []joinstore.Claim {
		t.Helper()
		cs, err := store.Claim(ctx, root, now, time.Minute, "w", table, iters)
		if err != nil || len(cs) != len(iters) {
			t.Fatalf("claim %v: %v %v", iters, cs, err)
		}
		return cs
	}
	a := claim(1)[0]
	commit(a)
	// Children of A1: J1 (iter 2), P1 (3), P2 (4), in the order Children plans.
	procs, _ := store.Processes(ctx, root)
	byStep := map[string]int64{}
	for _, p := range procs {
		byStep[p.ResumeStep] = p.Iter
	}
	ps := claim(byStep["P1"], byStep["P2"])
	cr := commit(ps[0]) // P1 valid: J1 (any, kill) closes; P2 is running
	if cr.DeliveredTo != byStep["J1"] {
		t.Fatalf("P1 did not deliver to J1: %+v", cr)
	}
	if _, err := store.JoinStep(ctx, root, byStep["J1"], now, time.Minute, func(v joinstore.JoinView) (joinstore.JoinApply, error) {
		ap, _, err := DecideJoin(v, o.CanReach)
		return ap, err
	}); err != nil {
		t.Fatal(err)
	}
	cr = commit(ps[1]) // P2 finishes and asks for J2 with Q1, Q2
	if cr.Gated != 3 {
		t.Errorf("gated %d children, want the whole join scope (J2, Q1, Q2)", cr.Gated)
	}
	procs, _ = store.Processes(ctx, root)
	for _, p := range procs {
		switch p.ResumeStep {
		case "Q1", "Q2", "J2":
			t.Errorf("%s %s was created in a killed join scope", p.Pid, p.ResumeStep)
		}
	}
}
