package joinstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/testenv"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// A waiting producer whose group's join closed with kill is aborted instead
// of run (the dispatch gate), also before the kill reached the group: an
// operator's kill of a kill-policy join target closes its join at once, and
// the group's waiting members are killed by a second transition
// (reactor.Kill's cascade), which the killer may not get to run. claim used
// to run them meanwhile.
func TestClaimGatesAKillClosedGroup(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		root := res.Root
		table := joinstore.StepTable{"A": {Reserve: 3, Bypass: true}}
		a, err := s.Claim(ctx, root, t0, time.Minute, "w", table, []int64{1})
		if err != nil || len(a) != 1 {
			t.Fatalf("claim the root: %v %v", a, err)
		}
		// A creates the join J (policy kill, iter 2) over P1 and P2 (iters 3
		// and 4, in J's fresh group "2").
		valid := true
		if _, err := s.Commit(ctx, a[0], t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: []byte(`{}`), Children: []joinstore.Child{
			{Iter: 2, ResumeStep: "J", JoinGroupID: "0", ResumePlain: []byte(`{}`),
				Join: &joinstore.JoinSpec{FromGroup: "2", From: []registry.From{{Node: "P1"}, {Node: "P2"}}, K: 2, Policy: registry.PolicyKill}},
			{Iter: 3, ResumeStep: "P1", JoinGroupID: "2"},
			{Iter: 4, ResumeStep: "P2", JoinGroupID: "2"},
		}}); err != nil {
			t.Fatal(err)
		}
		kr, err := s.Kill(ctx, root, t0, 2)
		if err != nil || kr.Results[2] != "aborted" || len(kr.FollowUps) != 1 || !kr.FollowUps[0].Kill {
			t.Fatalf("kill the target: %+v %v", kr, err)
		}
		// The cascade (a join step on J that kills its group) has not run.
		got, err := s.Claim(ctx, root, t0, time.Minute, "w", table, []int64{3, 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Fatalf("claim ran %d producers of a group whose join closed with kill", len(got))
		}
		for _, it := range []int64{3, 4} {
			p, err := s.Process(ctx, root, it)
			if err != nil || p.Status != joinstore.StatusAborted || p.AbortReason != "gated" {
				t.Errorf("producer %d: status %q, reason %q (%v), want aborted, gated", it, p.Status, p.AbortReason, err)
			}
		}
		if m, _ := s.Session(ctx, root); m["live"] != "0" || m["status"] != "finished" {
			t.Errorf("session live %q, status %q: want 0, finished", m["live"], m["status"])
		}
	})
}
