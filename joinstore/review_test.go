package joinstore_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/testenv"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// nestedKill: A1 spawns P0, P1 under join J1 (any, kill); P0 spawns Q0, Q1
// under a join J2 (all, kill) that becomes a member of J1's group.
func nestedKill(t testing.TB) *registry.Orchestration {
	raw := `{"id":"nk","structure":{
"A1":{"rule":"x","onValid":{"spawns":["P0","P1"],"join":{"joinid":"J1","mode":"any","waitonjoin":"kill","from":[{"node":"P0"},{"node":"P1"}]}}},
"P0":{"rule":"x","onValid":{"spawns":["Q0","Q1"],"join":{"joinid":"J2","mode":"all","waitonjoin":"kill","from":[{"node":"Q0"},{"node":"Q1"}]}}},
"P1":{"rule":"x"},"Q0":{"rule":"x"},"Q1":{"rule":"x"},"J1":{"rule":"x"},"J2":{"rule":"x"}}}`
	o, err := registry.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A commit that leaves its delivery pending for a join step (here: the
// target's join lock is held by a join step in progress) must not claim
// anything that the pending decision can still kill. P0's commit creates
// J2 (a waiting member of J1's group, policy kill) and its producers Q0,
// Q1; the join step of J1 then closes J1 (any) with kill: J2 is aborted,
// and with it its group's waiting members. The commit claimed Q0 and Q1
// (the first decision of J2 left them waiting and the deferred claim does
// not look at the pending delivery), so they run although their join's
// target was killed (DESIGN "Gates": on close with kill waiting processes
// are aborted at once).
func TestReviewFreshProducersClaimedWhileDeliveryPending(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		o := nestedKill(t)
		root, producers, j1 := startFan(t, s, o)
		if len(producers) != 2 {
			t.Fatalf("%d producers claimed", len(producers))
		}
		var p0 joinstore.Claim
		for _, c := range producers {
			if c.ResumeStep == "P0" {
				p0 = c
			}
		}
		// A join step of J1 holds its lock (e.g. P1's delivery being decided).
		lock := joinLockKey(root, j1)
		if err := rdb.Set(ctx, lock, "999999", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		valid := true
		children := reactor.Children(o.Step("P0"), false, true, reactor.Parent{Group: p0.JoinGroupID, FirstChild: p0.FirstChild}, json.RawMessage(`{"a":1}`), t0, 0)
		for i := range children {
			if children[i].Join != nil {
				children[i].Join.Reach = reactor.JoinReach(o, o.Step("P0").OnValid)
			}
		}
		cr, err := s.Commit(ctx, p0, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(`{"a":1}`),
			Children: children, DecideJoin: true, ClaimLease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if cr.DeliveredTo != j1 {
			t.Fatalf("delivery not left pending: %+v", cr)
		}
		if len(cr.Claims) != 0 {
			var names []string
			for _, c := range cr.Claims {
				names = append(names, c.Pid+"("+c.ResumeStep+")")
			}
			t.Errorf("commit claimed %v while its delivery to J1 (policy kill) is pending: a kill of J1 cannot abort them", names)
		}
		// The holder lets go; the join step closes J1 with kill.
		rdb.Del(ctx, lock)
		res, err := s.JoinStep(ctx, root, j1, t0, time.Minute, decider(o))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.FollowUps {
			if f.Kill {
				if _, err := s.JoinStep(ctx, root, f.Target, t0, time.Minute, func(v joinstore.JoinView) (joinstore.JoinApply, error) { return reactor.KillGroup(v) }); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, ch := range children {
			if ch.Join != nil {
				continue
			}
			p, _ := s.Process(ctx, root, ch.Iter)
			if p.Status == joinstore.StatusRunning {
				t.Errorf("%s (%s) is running although its join target was killed", p.Pid, p.ResumeStep)
			}
		}
	})
}

func joinLockKey(root joinstore.Root, target int64) string {
	return "xgr:{" + root.Owner + ":" + strconv.FormatInt(root.RootPid, 10) + "}:jl:" + strconv.FormatInt(target, 10)
}
