package joinstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// With ServerClock, Redis's own clock judges leases and due times: a
// replica whose clock runs ten minutes fast does not take over a lease
// that has not expired, and a replica whose clock runs hours behind or
// ahead still claims what is due and commits within its lease. With the
// caller's clock (the simulator's mode) the fast clock steals the lease.
func TestServerClockJudgesLeases(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		for _, serverClock := range []bool{true, false} {
			s := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, ServerClock: serverClock})
			real := time.Now()
			slow, fast, way := real.Add(-time.Hour), real.Add(10*time.Minute), real.Add(2*time.Hour)
			start := real
			if serverClock {
				start = slow // ignored for the decision: due now by Redis's clock
			}
			r, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: start})
			if err != nil {
				t.Fatal(err)
			}
			claimAt := real
			if serverClock {
				claimAt = slow
			}
			claims, err := s.Claim(ctx, r.Root, claimAt, time.Minute, "slow", joinstore.StepTable{"A1": {Reserve: 1}}, []int64{1})
			if err != nil || len(claims) != 1 {
				t.Fatalf("server clock %v: claim by a slow clock: %v %v", serverClock, claims, err)
			}
			rec, err := s.Recover(ctx, r.Root, fast)
			if err != nil {
				t.Fatal(err)
			}
			if serverClock && rec[1] != "" && rec[1] != joinstore.Stale {
				t.Fatalf("a fast clock took over a lease that has not expired: %v", rec)
			}
			if !serverClock {
				if rec[1] != joinstore.Released {
					t.Fatalf("with the caller's clock a fast clock takes the lease over: %v", rec)
				}
				continue
			}
			valid := true
			_, err = s.Commit(ctx, claims[0], way, joinstore.Commit{Status: "done", Valid: &valid, Payload: []byte(`{}`),
				Children: []joinstore.Child{{Iter: claims[0].FirstChild, ResumeStep: "B1", NextWakeAt: way.Add(time.Hour), JoinGroupID: "0"}}})
			if err != nil {
				t.Fatalf("commit by a clock two hours ahead, within the lease: %v", err)
			}
			// The child is due an hour after the commit by Redis's clock.
			next, _, err := s.NextDue(ctx, r.Root)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Until(next); d < 59*time.Minute || d > 61*time.Minute {
				t.Errorf("the child is due in %s, want an hour (relative to the commit)", d)
			}
		}
	})
}

// A start retried after it created the session but failed to index it
// (the index is in another slot) indexes it then: the session is not
// orphaned. (The chaos suite found this across a Cluster failover.)
func TestStartRetryIndexesTheRoot(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		req := joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: "k"}
		r, err := s.Start(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		s.UnmarkRoot(ctx, r.Root) // the index write that was lost
		if roots, _ := s.RootsDue(ctx, t0.Add(time.Minute), 100); len(roots) != 0 {
			t.Fatalf("still indexed: %v", roots)
		}
		again, err := s.Start(ctx, req)
		if err != nil || again.Ack != "already_queued" || again.Root != r.Root {
			t.Fatalf("retry: %+v %v", again, err)
		}
		if roots, _ := s.RootsDue(ctx, t0.Add(time.Minute), 100); len(roots) != 1 || roots[0] != r.Root {
			t.Fatalf("the retry did not index the session: %v", roots)
		}
	})
}
