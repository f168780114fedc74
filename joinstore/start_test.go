package joinstore_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// errCut stands for a call of a start that failed (a dropped connection, a
// failover of the master that holds the key).
var errCut = errors.New("connection cut")

// cutAt makes the start's call at stage fail, once.
func cutAt(stage string) func(string) error {
	done := false
	return func(s string) error {
		if s == stage && !done {
			done = true
			return errCut
		}
		return nil
	}
}

// replicaPass does what a replica does with the root index at now: adopt
// each due session, and forget those that are finished or missing. It
// returns the sessions it adopted (their root leases released again).
func replicaPass(t *testing.T, s *joinstore.Store, now time.Time) []joinstore.Root {
	t.Helper()
	ctx := context.Background()
	roots, err := s.RootsDue(ctx, now, 100)
	if err != nil {
		t.Fatal(err)
	}
	var adopted []joinstore.Root
	for _, r := range roots {
		a, err := s.Adopt(ctx, r, "replica-1", time.Second, time.Second, now, now.Add(time.Second))
		switch {
		case errors.Is(err, joinstore.ErrFinished):
			s.MarkFinished(ctx, r, now)
		case err != nil:
			t.Fatalf("adopt %s: %v", r, err)
		default:
			adopted = append(adopted, r)
			s.ReleaseRoot(ctx, r, "replica-1", a.Token)
		}
	}
	return adopted
}

// A start whose last call (the root index) fails still becomes runnable:
// a replica finds the session without a retry of the start.
func TestStartCutBeforeIndexIsRunnable(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		s.SetStartHook(cutAt("index"))
		_, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: "k"})
		if !errors.Is(err, errCut) {
			t.Fatalf("start: %v, want the cut", err)
		}
		meta, err := s.SessionMeta(ctx, joinstore.Root{Owner: owner, RootPid: 1})
		if err != nil || meta.Status != joinstore.SessionLive {
			t.Fatalf("the session was not created: %v %v", meta, err)
		}
		// No retry: a replica looking later runs it.
		adopted := replicaPass(t, s, t0.Add(10*time.Minute))
		if len(adopted) != 1 || adopted[0].RootPid != 1 {
			t.Fatalf("the session a cut start created is not found by replicas: adopted %v", adopted)
		}
	})
}

// A start cut before it created the session leaves nothing behind: the
// replica that finds its index entry forgets it, and the owner's index
// forgets the root pid when the session TTL has passed.
func TestStartCutBeforeCreateLeavesNothing(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		s.SetStartHook(cutAt("create"))
		if _, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: "k"}); !errors.Is(err, errCut) {
			t.Fatalf("start: %v, want the cut", err)
		}
		later := t0.Add(10 * time.Minute)
		if adopted := replicaPass(t, s, later); len(adopted) != 0 {
			t.Fatalf("adopted %v: no session was created", adopted)
		}
		if roots, _ := s.RootsDue(ctx, later.Add(24*time.Hour), 100); len(roots) != 0 {
			t.Errorf("the root index still holds %v", roots)
		}
		if err := s.CollectGarbage(ctx, owner, later.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if refs, _ := s.Sessions(ctx, owner, 0, 10, false); len(refs) != 0 {
			t.Errorf("the owner's index still lists %v", refs)
		}
	})
}

// A replica that finds a start's index entry before the session exists
// gives the root pid up; the start, going on late, does not create a
// session under it (which nothing would index if its last call failed) but
// takes another root pid, which becomes runnable.
func TestStartOvertakenByReplica(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		later := t0.Add(10 * time.Minute)
		creates := 0
		s.SetStartHook(func(stage string) error {
			switch stage {
			case "create":
				creates++
				if creates == 1 {
					// The start stalls here past the grace; a replica looks.
					replicaPass(t, s, later)
				}
			case "index":
				return errCut
			}
			return nil
		})
		_, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: "k"})
		if !errors.Is(err, errCut) {
			t.Fatalf("start: %v, want the cut", err)
		}
		s.SetStartHook(nil)
		adopted := replicaPass(t, s, later.Add(10*time.Minute))
		for _, r := range adopted {
			if meta, err := s.SessionMeta(ctx, r); err != nil || meta.Status != joinstore.SessionLive {
				t.Errorf("adopted %s: %v %v", r, meta, err)
			}
		}
		// Every live session the start created must be runnable.
		for pid := int64(1); pid <= 3; pid++ {
			r := joinstore.Root{Owner: owner, RootPid: pid}
			meta, err := s.SessionMeta(ctx, r)
			if err != nil || meta.Status != joinstore.SessionLive {
				continue
			}
			found := false
			for _, a := range adopted {
				found = found || a == r
			}
			if !found {
				t.Errorf("session %s is live but no replica finds it", r)
			}
		}
		if len(adopted) != 1 {
			t.Errorf("adopted %v, want the one session of the start", adopted)
		}
		// The root pid given up is not listed as a session of the owner.
		if refs, _ := s.Sessions(ctx, owner, 0, 10, false); len(refs) != 1 || len(adopted) == 1 && refs[0].Root != adopted[0] {
			t.Errorf("the owner's index lists %v, want only %v", refs, adopted)
		}
		// A retry with the key names that session.
		again, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: later, IdempotencyKey: "k"})
		if err != nil || again.Ack != "already_queued" || len(adopted) == 1 && again.Root != adopted[0] {
			t.Errorf("retry: %+v %v, want already_queued %v", again, err, adopted)
		}
	})
}

// After Redis lost the owner's counter writes but not the session (another
// master on a cluster; a session restored from elsewhere), a new start does
// not take the surviving session as its own: it gets the next free root pid,
// and the counter is repaired upward.
func TestStartAfterCounterLossTakesAFreshRoot(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		var logged bytes.Buffer
		s := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, Log: slog.New(slog.NewTextHandler(&logged, nil))})
		ctx := context.Background()
		a, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: "a"})
		if err != nil {
			t.Fatal(err)
		}
		// The owner's slot lost its last writes: counter, index, key.
		own := "xgr:{own:" + owner + "}:"
		rdb.Set(ctx, own+"seq", 0, 0)
		rdb.Del(ctx, own+"roots", own+"idem", own+"idemof")
		b, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0.Add(time.Second), IdempotencyKey: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if b.Root == a.Root || b.Ack == "already_queued" {
			t.Fatalf("start b got %+v: start a's session %s", b, a.Root)
		}
		if !strings.Contains(logged.String(), "redis lost acknowledged writes") || !strings.Contains(logged.String(), "sessionStartKey=a") {
			t.Errorf("the loss was not logged: %s", logged.String())
		}
		if next, _ := s.NextRootPid(ctx, owner); next <= b.Root.RootPid {
			t.Errorf("next root pid %d: the counter was not repaired above %d", next, b.Root.RootPid)
		}
		// A retry of a still names a's session.
		again, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0.Add(2 * time.Second), IdempotencyKey: "a"})
		if err != nil || again.Root != a.Root || again.Ack != "already_queued" {
			t.Errorf("retry of a: %+v %v, want already_queued %s", again, err, a.Root)
		}
	})
}

// A retry of a start whose session already finished writes nothing: the
// finished session is not indexed again (the gateway refuses a reused
// permit this way, and bad input creates no state).
func TestStartRetryOfAFinishedSessionWritesNothing(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		req := joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: "order-7"}
		res, err := s.Start(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		claims, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", joinstore.StepTable{}, []int64{1})
		if err != nil || len(claims) != 1 {
			t.Fatalf("claim: %v %v", claims, err)
		}
		valid := true
		if cr, err := s.Commit(ctx, claims[0], t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil || cr.Live != 0 {
			t.Fatalf("commit: %+v %v", cr, err)
		}
		due, err := s.RootsDue(ctx, t0.Add(time.Hour), 10)
		if err != nil || len(due) != 0 {
			t.Fatalf("a finished session is indexed: %v %v", due, err)
		}
		again, err := s.Start(ctx, req)
		if err != nil || again.Root != res.Root || again.Ack != "already_queued" {
			t.Fatalf("retry: %+v %v", again, err)
		}
		if due, err := s.RootsDue(ctx, t0.Add(time.Hour), 10); err != nil || len(due) != 0 {
			t.Fatalf("the retry indexed the finished session again: %v %v", due, err)
		}
	})
}

// NextRootPid tells the root pid the owner's next start gets, counted by
// the same Lua as the allocation (lib/root_seq.lua): for a new owner, after
// starts, after Redis lost the counter's writes while sessions survived in
// the owner's index (the index wins), and with a counter above the index
// (sessions forgotten: the counter wins). Each time a start that names the
// pid (a SessionPermit signs it) gets it, and the read writes nothing.
func TestNextRootPidIsWhatAStartGets(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		own := "xgr:{own:" + owner + "}:"
		step := 0
		startNext := func(what string, want int64) {
			t.Helper()
			seq, _ := rdb.Get(ctx, own+"seq").Result()
			next, err := s.NextRootPid(ctx, owner)
			if err != nil || next != want {
				t.Fatalf("%s: NextRootPid = %d, %v; want %d", what, next, err, want)
			}
			if again, _ := rdb.Get(ctx, own+"seq").Result(); again != seq {
				t.Fatalf("%s: NextRootPid wrote the counter: %q, was %q", what, again, seq)
			}
			step++
			res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0.Add(time.Duration(step) * time.Second), RootPid: next})
			if err != nil || res.Root.RootPid != next {
				t.Fatalf("%s: a start naming root pid %d got %+v, %v", what, next, res, err)
			}
		}
		startNext("a new owner", 1)
		startNext("after one start", 2)
		startNext("after two starts", 3)
		// The owner's slot lost the counter's writes; its index kept the
		// sessions.
		rdb.Set(ctx, own+"seq", 1, 0)
		startNext("a counter below the owner's index", 4)
		// The index lost its newest entries; the counter is right.
		rdb.ZRemRangeByRank(ctx, own+"roots", 1, -1)
		startNext("a counter above the owner's index", 5)
		if _, err := s.NextRootPid(ctx, "not-an-owner"); err == nil {
			t.Errorf("NextRootPid of a bad owner: no error")
		}
	})
}
