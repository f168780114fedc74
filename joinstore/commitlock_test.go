package joinstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A commit that asks for its target's join lock (Commit.LockTarget) takes
// it in its own round trip, after its delivery: the join step decides on
// that view without locking again. A commit that delivers nothing, fails,
// or finds the lock held leaves no lock of its own behind.
func TestCommitTakesTheJoinLockAlong(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		valid := true
		lockKey := func(root joinstore.Root, target int64) string {
			return fmt.Sprintf("xgr:{%s:%d}:jl:%d", root.Owner, root.RootPid, target)
		}

		// Delivered: the lock comes back with the delivery in its view, and
		// the join step closes the join from it in one round trip.
		o := fanOut(t, 2, `{"k":1}`, "drain")
		root, producers, target := startFan(t, s, o)
		rt := &redisstat.RoundTrips{}
		rdb.AddHook(rt)
		cr, err := s.Commit(ctx, producers[0], t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(`{"x":1}`), LockTarget: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if cr.DeliveredTo != target || cr.Lock == nil || len(cr.Lock.View.Pending) != 1 {
			t.Fatalf("commit: delivered to %d, lock %+v; want the lock of %d with one pending delivery", cr.DeliveredTo, cr.Lock, target)
		}
		before := rt.N()
		res, err := s.JoinStepLocked(ctx, cr.Lock, t0, time.Minute, decider(o))
		if err != nil || len(res.Verdicts) != 1 || res.Verdicts[0] != joinstore.VerdictSatisfied {
			t.Fatalf("join step from the commit's lock: %+v %v", res, err)
		}
		if trips := rt.N() - before; trips != 1 {
			t.Errorf("the join step from the commit's lock took %d round trips, want 1", trips)
		}
		if n, _ := rdb.Exists(ctx, lockKey(root, target)).Result(); n != 0 {
			t.Error("the join lock is still held after the join step")
		}

		// The second producer delivers nothing (the join is decided): the
		// lock the commit took along is given back.
		cr, err = s.Commit(ctx, producers[1], t0, joinstore.Commit{Status: "done", Valid: &valid, LockTarget: time.Minute})
		if err != nil || cr.DeliveredTo != 0 || cr.Lock != nil {
			t.Fatalf("commit after the join closed: %+v %v", cr, err)
		}
		if n, _ := rdb.Exists(ctx, lockKey(root, target)).Result(); n != 0 {
			t.Error("a commit that delivered nothing left its join lock behind")
		}

		// A stale commit (lease lost) fails and leaves no lock.
		root2, producers2, target2 := startFan(t, s, fanOut(t, 2, `"all"`, "drain"))
		stale := producers2[0]
		stale.Token++
		if _, err := s.Commit(ctx, stale, t0, joinstore.Commit{Status: "done", Valid: &valid, LockTarget: time.Minute}); err == nil {
			t.Fatal("a commit with a stale token succeeded")
		}
		if n, _ := rdb.Exists(ctx, lockKey(root2, target2)).Result(); n != 0 {
			t.Error("a failed commit left its join lock behind")
		}

		// Another holder has the lock: the commit succeeds without it, and
		// the holder's lock stays.
		rdb.Set(ctx, lockKey(root2, target2), "999999", time.Minute)
		cr, err = s.Commit(ctx, producers2[0], t0, joinstore.Commit{Status: "done", Valid: &valid, LockTarget: time.Minute})
		if err != nil || cr.DeliveredTo != target2 || cr.Lock != nil {
			t.Fatalf("commit with the lock held elsewhere: %+v %v", cr, err)
		}
		if v, _ := rdb.Get(ctx, lockKey(root2, target2)).Result(); v != "999999" {
			t.Errorf("the other holder's lock is %q now", v)
		}
	})
}
