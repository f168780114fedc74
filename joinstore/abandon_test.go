package joinstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A process whose every run stops its replica (its lease expires each
// time) is run MaxRecoveries times, then abandoned with the reason: it
// cannot stop replica after replica. A process that commits after a
// recovery is not affected.
func TestRecoveredTooOftenIsAbandoned(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, MaxRecoveries: 3}), context.Background()
		res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		table := joinstore.StepTable{"A1": {Reserve: 1}}
		now := t0
		for run := 1; run <= 3; run++ {
			c, err := s.Claim(ctx, res.Root, now, time.Second, "replica", table, []int64{1})
			if err != nil || len(c) != 1 {
				t.Fatalf("run %d: claim %v %v", run, c, err)
			}
			now = now.Add(5 * time.Second) // the replica died: the lease expires
			rec, err := s.Recover(ctx, res.Root, now)
			if err != nil {
				t.Fatal(err)
			}
			want := joinstore.Released
			if run == 3 {
				want = joinstore.Abandoned
			}
			if rec[1] != want {
				t.Fatalf("recovery %d: %v, want %s", run, rec, want)
			}
		}
		p, _ := s.Process(ctx, res.Root, 1)
		if p.Status != joinstore.StatusAborted || !strings.Contains(p.AbortReason, "abandoned") || !strings.Contains(p.AbortReason, "3 times") {
			t.Fatalf("abandoned process: status %q, reason %q", p.Status, p.AbortReason)
		}
		if c, _ := s.Claim(ctx, res.Root, now, time.Second, "replica", table, []int64{1}); len(c) != 0 {
			t.Fatalf("an abandoned process was claimed again: %+v", c)
		}
		if meta, _ := s.SessionMeta(ctx, res.Root); meta.Status != joinstore.SessionFinished {
			t.Fatalf("the session's only process was abandoned, yet the session is %q", meta.Status)
		}
		// An abandoned process fails its session (docs/runtime.md "Session outcomes").
		if meta, err := s.SessionMeta(ctx, res.Root); err != nil || meta.Failed != 1 || joinstore.OutcomeOf(meta) != joinstore.OutcomeFailed {
			t.Fatalf("outcome of a session whose process was abandoned: %+v %v", meta, err)
		}
	})
}

// MaxRecoveries < 0 recovers without end (the behaviour before the cap).
func TestRecoveriesUncapped(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, MaxRecoveries: -1}), context.Background()
		res, _ := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		table := joinstore.StepTable{"A1": {Reserve: 1}}
		now := t0
		for run := 1; run <= 5; run++ {
			if c, err := s.Claim(ctx, res.Root, now, time.Second, "replica", table, []int64{1}); err != nil || len(c) != 1 {
				t.Fatalf("run %d: claim %v %v", run, c, err)
			}
			now = now.Add(5 * time.Second)
			if rec, err := s.Recover(ctx, res.Root, now); err != nil || rec[1] != joinstore.Released {
				t.Fatalf("recovery %d: %v %v", run, rec, err)
			}
		}
	})
}
