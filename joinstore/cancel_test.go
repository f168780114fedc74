package joinstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A commit with CancelSession kills its session with the reason, records
// the step aborted with it and creates nothing; the session's other
// processes are never claimed again.
func TestCommitCancelsTheSession(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		table := joinstore.StepTable{"A1": {Reserve: 2}, "B1": {Reserve: 1}}
		a, _ := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{1})
		ch := []joinstore.Child{
			{Iter: a[0].FirstChild, ResumeStep: "B1", JoinGroupID: "0"},
			{Iter: a[0].FirstChild + 1, ResumeStep: "C1", JoinGroupID: "0", NextWakeAt: t0.Add(time.Hour)},
		}
		if _, err := s.Commit(ctx, a[0], t0, joinstore.Commit{Status: "done", Children: ch}); err != nil {
			t.Fatal(err)
		}
		b, _ := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{a[0].FirstChild})
		const why = "step B1: b.json: rules[0] (cancelSession) holds: the session is cancelled"
		cr, err := s.Commit(ctx, b[0], t0, joinstore.Commit{Status: "aborted", AbortReason: why, CancelSession: why,
			Children: []joinstore.Child{{Iter: b[0].FirstChild, ResumeStep: "D1", JoinGroupID: "0"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !cr.Killed || !cr.Cancelled || cr.Capped != "" {
			t.Fatalf("commit result %+v: want killed and cancelled, not capped", cr)
		}
		meta, _ := s.SessionMeta(ctx, res.Root)
		if meta.KilledAt.IsZero() || meta.KillReason != why {
			t.Fatalf("session meta: killedAt %v, killReason %q", meta.KilledAt, meta.KillReason)
		}
		p, _ := s.Process(ctx, res.Root, b[0].Iter)
		if p.Status != joinstore.StatusAborted || p.AbortReason != why {
			t.Fatalf("cancelling step: %q %q", p.Status, p.AbortReason)
		}
		if _, err := s.Process(ctx, res.Root, b[0].FirstChild); err == nil {
			t.Fatal("the cancelling step created a child")
		}
		if c, _ := s.Claim(ctx, res.Root, t0.Add(2*time.Hour), time.Minute, "w", table, []int64{a[0].FirstChild + 1}); len(c) != 0 {
			t.Fatalf("a process of a cancelled session was claimed: %+v", c)
		}
	})
}
