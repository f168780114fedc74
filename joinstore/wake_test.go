package joinstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// wakeAll is a decider that wakes every waiting candidate with a payload.
func wakeAll(plain string) joinstore.WakeDecider {
	return func(procs []joinstore.WaitingProc) ([]joinstore.Waking, error) {
		var out []joinstore.Waking
		for _, p := range procs {
			if p.Status == "waiting" && !p.JoinOpen {
				out = append(out, joinstore.Waking{Iter: p.Iter, UpdatedAt: p.UpdatedAt, Plain: json.RawMessage(plain)})
			}
		}
		return out, nil
	}
}

// The wake-up queue of a commit and the wake of another session's process,
// each in its own slot: queued with the step (never for a stale token),
// applied once per id, recorded once, and a finished session stays
// adoptable until its queue is empty.
func TestWakeQueueAndApply(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		const other = "0x00000000000000000000000000000000000000ee"
		target, err := s.Start(ctx, joinstore.StartRequest{Owner: other, StartStep: "W1", Now: t0, WakeAt: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		src, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "C1", Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		claims, err := s.Claim(ctx, src.Root, t0, time.Minute, "w", joinstore.StepTable{"C1": {}}, []int64{1})
		if err != nil || len(claims) != 1 {
			t.Fatalf("claim: %v %v", claims, err)
		}
		valid := true
		cr, err := s.Commit(ctx, claims[0], t0, joinstore.Commit{Status: "done", Valid: &valid,
			WakeUps: []json.RawMessage{json.RawMessage(`{"n": 18446744073709551615}`), json.RawMessage(`{}`)}})
		if err != nil || cr.Live != 0 || len(cr.Wakes) != 2 || cr.Wakes[0].ID != owner+":"+src.Root.Pid(1)+"#0" {
			t.Fatalf("commit: %+v %v", cr, err)
		}
		pending, err := s.PendingWakes(ctx, src.Root)
		if err != nil || len(pending) != 2 || string(pending[0].Entry) != `{"n": 18446744073709551615}` {
			t.Fatalf("pending: %+v %v", pending, err)
		}
		// Finished, but adoptable for its queued wake-ups.
		if _, err := s.AcquireRoot(ctx, src.Root, "r", time.Minute); err != nil {
			t.Fatalf("a finished session with queued wake-ups must be adoptable: %v", err)
		}

		res, err := s.Wake(ctx, target.Root, pending[0].ID, "W1", nil, t0, "test", wakeAll(`{"woken":true}`))
		if err != nil || len(res.Woken) != 1 || res.Woken[0] != 1 {
			t.Fatalf("wake: %+v %v", res, err)
		}
		if due, _ := s.DueIters(ctx, target.Root, t0, 10); len(due) != 1 {
			t.Fatalf("woken process not due now: %v", due)
		}
		p, _ := s.Process(ctx, target.Root, 1)
		if string(p.ResumePlain) != `{"woken":true}` {
			t.Errorf("payload %s", p.ResumePlain)
		}
		again, err := s.Wake(ctx, target.Root, pending[0].ID, "W1", nil, t0, "test", wakeAll(`{"twice":true}`))
		if err != nil || !again.Duplicate {
			t.Fatalf("the same id again: %+v %v", again, err)
		}
		if p, _ := s.Process(ctx, target.Root, 1); string(p.ResumePlain) != `{"woken":true}` {
			t.Errorf("a duplicate changed the payload: %s", p.ResumePlain)
		}
		for i, w := range pending {
			for n := 0; n < 2; n++ { // recorded once however often
				if err := s.WakeDone(ctx, src.Root, w, src.Root.Pid(1), "C1", "outcome "+w.ID, t0); err != nil {
					t.Fatal(err)
				}
			}
			if i == 0 {
				if _, err := s.AcquireRoot(ctx, src.Root, "r", time.Minute); err != nil {
					t.Fatalf("one wake-up still queued: %v", err)
				}
			}
		}
		if _, err := s.AcquireRoot(ctx, src.Root, "r2", time.Minute); err != joinstore.ErrFinished {
			t.Fatalf("nothing left: %v", err)
		}
		h, _ := s.History(ctx, src.Root)
		var outcomes []string
		for _, e := range h {
			if e.Event == joinstore.EventWakeUp {
				outcomes = append(outcomes, e.Outcome)
			}
		}
		if len(outcomes) != 2 || outcomes[0] != "outcome "+pending[0].ID {
			t.Errorf("recorded outcomes: %v", outcomes)
		}
		th, _ := s.History(ctx, target.Root)
		if len(th) != 1 || th[0].Event != joinstore.EventWoken || th[0].By != "test" {
			t.Errorf("target history: %v", th)
		}

		// A stale read: the process changed between the read and the
		// write; the wake reads and decides again.
		r2, _ := s.Start(ctx, joinstore.StartRequest{Owner: other, StartStep: "W1", Now: t0, WakeAt: t0.Add(time.Hour)})
		calls := 0
		res, err = s.Wake(ctx, r2.Root, "", "W1", nil, t0, "test", func(procs []joinstore.WaitingProc) ([]joinstore.Waking, error) {
			calls++
			if calls == 1 {
				// Another writer changes the process under the decision.
				s.Pause(ctx, r2.Root, t0.Add(time.Millisecond), true)
			}
			return wakeAll(`{}`)(procs)
		})
		if err != nil || calls != 2 || len(res.Woken) != 1 {
			t.Fatalf("compare-and-set retry: calls %d %+v %v", calls, res, err)
		}
		if due, _ := s.DueIters(ctx, r2.Root, t0, 10); len(due) != 0 {
			t.Errorf("a paused process woken must not be due: %v", due)
		}
	})
}

// Killing a session with no live process (finished) is a no-op, not a
// Redis error (it used to send HMGET without fields).
func TestKillFinishedSession(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		r, _ := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		claims, _ := s.Claim(ctx, r.Root, t0, time.Minute, "w", joinstore.StepTable{"A1": {}}, []int64{1})
		valid := true
		if _, err := s.Commit(ctx, claims[0], t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil {
			t.Fatal(err)
		}
		res, err := s.Kill(ctx, r.Root, t0)
		if err != nil || len(res.Results) != 0 || res.Live != 0 {
			t.Fatalf("kill of a finished session: %+v %v", res, err)
		}
	})
}

// A process killed while it runs whose replica then dies: when its lease
// expires, recovery aborts it (it used to sit waiting with a kill mark,
// never run and never ended); in a join group it fails at the open target.
func TestKilledRunningProcessRecoveredAborted(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		// Whole session killed under a running root process.
		r, _ := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		claims, err := s.Claim(ctx, r.Root, t0, time.Second, "dead", joinstore.StepTable{"A1": {}}, []int64{1})
		if err != nil || len(claims) != 1 {
			t.Fatalf("claim: %v %v", claims, err)
		}
		// The whole-session kill is a mark: the running process is left to
		// its commit or, as here, to recovery.
		kr, err := s.Kill(ctx, r.Root, t0)
		if err != nil || kr.Live != 1 || len(kr.Results) != 0 {
			t.Fatalf("kill: %+v %v", kr, err)
		}
		rec, err := s.Recover(ctx, r.Root, t0.Add(2*time.Second))
		if err != nil || rec[1] != joinstore.Killed {
			t.Fatalf("recover: %v %v", rec, err)
		}
		p, _ := s.Process(ctx, r.Root, 1)
		meta, _ := s.SessionMeta(ctx, r.Root)
		if p.Status != joinstore.StatusAborted || p.AbortReason != "killed" || meta.Status != joinstore.SessionFinished || meta.Live != 0 {
			t.Fatalf("after recovery: %v %v", p, meta)
		}
		if due, _ := s.DueIters(ctx, r.Root, t0.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("a killed process is due again: %v", due)
		}

		// One producer of a join killed while running: it fails at the target.
		o := fanOut(t, 2, `"all"`, "drain")
		root, producers, target := startFan(t, s, o)
		if _, err := s.Kill(ctx, root, t0, producers[0].Iter); err != nil {
			t.Fatal(err)
		}
		rec, err = s.Recover(ctx, root, t0.Add(2*time.Hour))
		if err != nil || rec[producers[0].Iter] != joinstore.Killed {
			t.Fatalf("recover producer: %v %v", rec, err)
		}
		pending, _ := s.PendingJoins(ctx, root)
		if len(pending) != 1 || pending[0] != target {
			t.Fatalf("the target must get the failure: %v", pending)
		}
	})
}

// A failing join decision gives its lock back only if it still holds it:
// a lock that expired and was taken by another holder is left alone.
func TestFailedDecisionLeavesAnotherHoldersLock(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		o := fanOut(t, 2, `"all"`, "drain")
		root, _, target := startFan(t, s, o)
		lock := fmt.Sprintf("xgr:{%s:%d}:jl:%d", root.Owner, root.RootPid, target)
		_, err := s.JoinStep(ctx, root, target, t0, time.Minute, func(joinstore.JoinView) (joinstore.JoinApply, error) {
			rdb.Set(ctx, lock, "999999", time.Minute) // our lock expired; another holder took it
			return joinstore.JoinApply{}, errors.New("decision failed")
		})
		if err == nil {
			t.Fatal("the failed decision was not reported")
		}
		if v, _ := rdb.Get(ctx, lock).Result(); v != "999999" {
			t.Fatalf("another holder's lock was removed (now %q)", v)
		}
		rdb.Del(ctx, lock)
		s.JoinStep(ctx, root, target, t0, time.Minute, func(joinstore.JoinView) (joinstore.JoinApply, error) {
			return joinstore.JoinApply{}, errors.New("decision failed")
		})
		if n, _ := rdb.Exists(ctx, lock).Result(); n != 0 {
			t.Fatal("a failed decision kept its own lock")
		}
	})
}

// Root pids are not reused after Redis lost recent writes of an owner's
// counter (restoring an older append-only file): the next one is above the
// newest session still indexed.
func TestRootPidsMonotonicAfterLostCounter(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		for i := 0; i < 3; i++ {
			if _, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0}); err != nil {
				t.Fatal(err)
			}
		}
		rdb.Set(ctx, "xgr:{own:"+owner+"}:seq", 1, 0) // the counter went back
		if n, err := s.NextRootPid(ctx, owner); err != nil || n != 4 {
			t.Fatalf("next root pid: %d %v", n, err)
		}
		r, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		if err != nil || r.Root.RootPid != 4 || r.Ack != "queued" {
			t.Fatalf("start after the counter went back: %+v %v", r, err)
		}
	})
}

func TestDurabilityProblem(t *testing.T) {
	for _, tc := range []struct {
		d      joinstore.Durability
		accept bool
		want   string
	}{
		{joinstore.Durability{AppendOnly: "yes", Fsync: "everysec"}, true, ""},
		{joinstore.Durability{AppendOnly: "yes", Fsync: "everysec"}, false, `appendfsync is "everysec": an OS crash or power loss loses up to about a second`},
		{joinstore.Durability{AppendOnly: "yes", Fsync: "always"}, false, ""},
		{joinstore.Durability{AppendOnly: "no", Fsync: "everysec"}, true, `appendonly is "no"`},
		{joinstore.Durability{AppendOnly: "yes", Fsync: "no"}, true, `appendfsync is "no"`},
	} {
		if got := tc.d.Problem(tc.accept); tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%+v accept everysec %v: %q, want %q", tc.d, tc.accept, got, tc.want)
		}
	}
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		nodes, err := joinstore.New(rdb, joinstore.Config{}).Durability(context.Background())
		if err != nil || len(nodes) == 0 || nodes[0].AppendOnly == "" || nodes[0].Fsync == "" {
			t.Fatalf("durability: %+v %v", nodes, err)
		}
	})
}
