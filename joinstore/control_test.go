package joinstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

const owner = "0x00000000000000000000000000000000000000cc"

var t0 = time.UnixMilli(1_800_000_000_000)

// fanOut builds an orchestration where A1 spawns n producers P0..P(n-1)
// joined by J1 with the given mode and policy.
func fanOut(t testing.TB, n int, mode, policy string) *registry.Orchestration {
	var steps, spawns, from []string
	for i := 0; i < n; i++ {
		steps = append(steps, fmt.Sprintf(`"P%d":{"rule":"x"}`, i))
		spawns = append(spawns, fmt.Sprintf(`"P%d"`, i))
		from = append(from, fmt.Sprintf(`{"node":"P%d"}`, i))
	}
	raw := fmt.Sprintf(`{"id":"fan","structure":{"A1":{"rule":"x","onValid":{"spawns":[%s],"join":{"joinid":"J1","mode":%s,"waitonjoin":"%s","from":[%s]}}},"J1":{"rule":"x"},%s}}`,
		strings.Join(spawns, ","), mode, policy, strings.Join(from, ","), strings.Join(steps, ","))
	o, err := registry.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// startFan starts a session of o, runs A1 and claims every producer.
func startFan(t testing.TB, s *joinstore.Store, o *registry.Orchestration) (joinstore.Root, []joinstore.Claim, int64) {
	ctx := context.Background()
	res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	table := reactor.Table(o)
	claims, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{1})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim A1: %v %v", claims, err)
	}
	a := claims[0]
	valid := true
	children := reactor.Children(o.Step("A1"), false, true, reactor.Parent{Group: a.JoinGroupID, FirstChild: a.FirstChild}, json.RawMessage(`{"in":1}`), t0, 0)
	// The target keeps its reachability, as the machine's commits give it:
	// a commit with DecideJoin may decide the join.
	children[0].Join.Reach = reactor.JoinReach(o, o.Step("A1").OnValid)
	if _, err := s.Commit(ctx, a, t0, joinstore.Commit{Status: "done", Valid: &valid, Children: children}); err != nil {
		t.Fatal(err)
	}
	target := children[0].Iter
	if _, err := s.JoinStep(ctx, res.Root, target, t0, time.Minute, decider(o)); err != nil {
		t.Fatal(err)
	}
	iters, _ := s.DueIters(ctx, res.Root, t0, 100)
	producers, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, iters)
	if err != nil {
		t.Fatal(err)
	}
	return res.Root, producers, target
}

func decider(o *registry.Orchestration) joinstore.Decider {
	return func(v joinstore.JoinView) (joinstore.JoinApply, error) {
		a, _, err := reactor.DecideJoin(v, o.CanReach)
		return a, err
	}
}

// 32 producers finishing at once on 32 goroutines: no delivery is lost and
// the join closes exactly once.
func TestConcurrentDeliveriesCloseOnce(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		{
			s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
			o := fanOut(t, 32, `"all"`, "kill")
			root, producers, target := startFan(t, s, o)
			if len(producers) != 32 {
				t.Fatalf("%d producers claimed", len(producers))
			}
			var mu sync.Mutex
			verdicts := map[string]int{}
			var wg sync.WaitGroup
			for i, c := range producers {
				wg.Add(1)
				go func(i int, c joinstore.Claim) {
					defer wg.Done()
					valid := true
					cr, err := s.Commit(ctx, c, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(fmt.Sprintf(`{"p%d":%d}`, i, i))})
					if err != nil || cr.DeliveredTo != target {
						t.Errorf("commit %s: %+v %v", c.Pid, cr, err)
						return
					}
					res, err := s.JoinStep(ctx, root, target, t0, time.Minute, decider(o))
					if errors.Is(err, joinstore.ErrJoinBusy) {
						return // the holder applies our delivery before it lets go
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, v := range res.Verdicts {
						verdicts[v]++
					}
					mu.Unlock()
				}(i, c)
			}
			wg.Wait()
			// A delivery pushed while the holder was between rounds is picked up
			// by a final step (what the root actor does for every pending target).
			if res, err := s.JoinStep(ctx, root, target, t0, time.Minute, decider(o)); err != nil {
				t.Fatal(err)
			} else {
				for _, v := range res.Verdicts {
					verdicts[v]++
				}
			}
			if verdicts[joinstore.VerdictSatisfied] != 1 {
				t.Fatalf("verdicts %v: the join must close exactly once", verdicts)
			}
			p, _ := s.Process(ctx, root, target)
			var inbox map[string]any
			json.Unmarshal(p.Join.Inbox, &inbox)
			var merged map[string]any
			json.Unmarshal(p.ResumePlain, &merged)
			if len(inbox) != 32 || len(merged) != 32 || !p.Join.Closed {
				t.Fatalf("inbox %d pieces, merged %d keys, closed %v", len(inbox), len(merged), p.Join.Closed)
			}
			if due, _ := s.DueIters(ctx, root, t0, 10); len(due) != 1 || due[0] != target {
				t.Fatalf("target not promoted: due %v", due)
			}
		}
	})
}

// A worker paused past its lease has its commit rejected while the new
// owner's commit succeeds.
func TestPausedWorkerLosesItsLease(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		res, _ := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
		table := joinstore.StepTable{"A1": {Reserve: 1}}
		old, _ := s.Claim(ctx, res.Root, t0, time.Second, "old", table, []int64{1})
		later := t0.Add(5 * time.Second)
		rec, err := s.Recover(ctx, res.Root, later)
		if err != nil || rec[1] != joinstore.Released {
			t.Fatalf("recover: %v %v", rec, err)
		}
		fresh, _ := s.Claim(ctx, res.Root, later, time.Minute, "new", table, []int64{1})
		if len(fresh) != 1 || fresh[0].Token <= old[0].Token {
			t.Fatalf("reclaim: %+v", fresh)
		}
		ch := []joinstore.Child{{Iter: old[0].FirstChild, ResumeStep: "B1", JoinGroupID: "0"}}
		if _, err := s.Commit(ctx, old[0], later, joinstore.Commit{Status: "done", Children: ch}); !errors.Is(err, joinstore.ErrLeaseLost) {
			t.Fatalf("stale worker's commit: %v", err)
		}
		ch[0].Iter = fresh[0].FirstChild
		if _, err := s.Commit(ctx, fresh[0], later, joinstore.Commit{Status: "done", Children: ch}); err != nil {
			t.Fatalf("new owner's commit: %v", err)
		}
		if _, err := s.Process(ctx, res.Root, old[0].FirstChild); !errors.Is(err, joinstore.ErrNotFound) {
			t.Errorf("the stale worker's child exists")
		}
		// A renewed lease is not recovered.
		c, _ := s.Claim(ctx, res.Root, later, time.Second, "w", joinstore.StepTable{}, []int64{fresh[0].FirstChild})
		s.Renew(ctx, c[0], later.Add(900*time.Millisecond), time.Minute)
		if rec, _ := s.Recover(ctx, res.Root, later.Add(2*time.Second)); len(rec) != 0 {
			t.Errorf("recovered a renewed lease: %v", rec)
		}
	})
}

func TestKillPauseResumeWake(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		o := fanOut(t, 3, `{"k":2}`, "drain")
		root, producers, target := startFan(t, s, o)
		// Put P2 back to waiting so that kill meets one waiting and running ones.
		if r, _ := s.Release(ctx, producers[2], t0, t0.Add(time.Hour)); r != joinstore.Released {
			t.Fatalf("release: %v", r)
		}
		kr, err := s.Kill(ctx, root, t0, producers[1].Iter, producers[2].Iter)
		if err != nil || kr.Results[producers[1].Iter] != "killing" || kr.Results[producers[2].Iter] != "aborted" {
			t.Fatalf("kill: %+v %v", kr, err)
		}
		if len(kr.FollowUps) != 1 || kr.FollowUps[0].Target != target {
			t.Fatalf("the killed waiting producer must fail at the join: %+v", kr.FollowUps)
		}
		// The running one is aborted at its commit and creates nothing.
		valid := true
		cr, err := s.Commit(ctx, producers[1], t0, joinstore.Commit{Status: "done", Valid: &valid})
		if err != nil || !cr.Killed {
			t.Fatalf("commit after kill: %+v %v", cr, err)
		}
		res, err := s.JoinStep(ctx, root, target, t0, time.Minute, decider(o))
		if err != nil || res.Verdicts[len(res.Verdicts)-1] != joinstore.VerdictUnfulfillable {
			t.Fatalf("two of three producers killed with k=2: %+v %v", res, err)
		}

		// Pause and resume a whole session; wake with a payload merge.
		r2, _ := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, WakeAt: t0.Add(time.Hour), Payload: json.RawMessage(`{"a":1,"__wakeUp":{"default":{"rpc":["0x00000000000000000000000000000000000000AB"]}}}`)})
		if out, err := s.Pause(ctx, r2.Root, t0, true); err != nil || out[1] != "paused" {
			t.Fatalf("pause: %v %v", out, err)
		}
		if due, _ := s.DueIters(ctx, r2.Root, t0.Add(2*time.Hour), 10); len(due) != 0 {
			t.Fatalf("paused process is due")
		}
		rpcWake := func(root joinstore.Root, iter int64, caller string, overlay map[string]any) (joinstore.WakeResult, []reactor.WakeNote) {
			t.Helper()
			req := reactor.WakeRequest{Runner: root.Owner, Operator: caller == "", Overlay: overlay,
				Caller: wakeup.Caller{Scope: wakeup.ScopeRPC, Address: caller}}
			res, notes, err := reactor.Wake(ctx, s, root, "", []int64{iter}, req, "test", t0)
			if err != nil {
				t.Fatalf("wake %s: %v", root.Pid(iter), err)
			}
			return res, notes
		}
		if res, notes := rpcWake(r2.Root, 1, "0x00000000000000000000000000000000000000cd", map[string]any{"x": 1}); len(res.Woken) != 0 || !strings.Contains(notes[0].Reason, "denied") {
			t.Fatalf("wake by a stranger: %+v %+v", res, notes)
		}
		if res, notes := rpcWake(r2.Root, 1, "0x00000000000000000000000000000000000000ab", map[string]any{"x": 2, "_y": 3}); len(res.Woken) != 1 {
			t.Fatalf("wake by an allowed caller: %+v %+v", res, notes)
		}
		if due, _ := s.DueIters(ctx, r2.Root, t0, 10); len(due) != 0 {
			t.Fatalf("a paused process woken must stay unclaimable until resumed")
		}
		if out, _ := s.Pause(ctx, r2.Root, t0, false); out[1] != "resumed" {
			t.Fatalf("resume: %v", out)
		}
		if due, _ := s.DueIters(ctx, r2.Root, t0, 10); len(due) != 1 {
			t.Fatalf("woken and resumed process not due now: %v", due)
		}
		p, _ := s.Process(ctx, r2.Root, 1)
		if string(p.ResumePlain) != `{"__wakeUp":{"default":{"rpc":["0x00000000000000000000000000000000000000AB"]}},"a":1,"x":2}` {
			t.Errorf("merged payload %s", p.ResumePlain)
		}
		// Kill the whole session: nothing is left live.
		kr, err = s.Kill(ctx, r2.Root, t0)
		if err != nil || kr.Live != 0 {
			t.Fatalf("kill root: %+v %v", kr, err)
		}
		meta, _ := s.SessionMeta(ctx, r2.Root)
		if meta.Status != joinstore.SessionFinished || meta.KilledAt.IsZero() {
			t.Errorf("killed session: %v", meta)
		}
		// Killing it again (nothing live) is a no-op, not an error, and
		// leaves the first kill's record as it was.
		kr, err = s.Kill(ctx, r2.Root, t0.Add(time.Minute))
		if err != nil || kr.Live != 0 || len(kr.Results) != 0 || len(kr.FollowUps) != 0 {
			t.Fatalf("second kill of the whole session: %+v %v", kr, err)
		}
		if again, _ := s.SessionMeta(ctx, r2.Root); !again.KilledAt.Equal(meta.KilledAt) || !again.FinishedAt.Equal(meta.FinishedAt) {
			t.Errorf("a second kill rewrote the session: %v, was %v", again, meta)
		}
		if res, notes := rpcWake(r2.Root, 1, "", nil); !res.Killed && (len(res.Woken) != 0 || notes[0].Reason != "killed") {
			t.Errorf("wake of a killed process: %+v %+v", res, notes)
		}
		// The owner's sessions, newest first, paged.
		list, err := s.Sessions(ctx, owner, 0, 1, false)
		if err != nil || len(list) != 1 || list[0].Root != r2.Root {
			t.Errorf("newest session: %+v %v", list, err)
		}
		list, _ = s.Sessions(ctx, owner, 1, 10, false)
		if len(list) != 1 || list[0].Root != root {
			t.Errorf("second page: %+v", list)
		}
		// A join target cannot be woken before its join closes.
		o2 := fanOut(t, 2, `"all"`, "drain")
		root3, _, target3 := startFan(t, s, o2)
		if res, notes := rpcWake(root3, target3, "", nil); len(res.Woken) != 0 || !strings.Contains(notes[0].Reason, "join is still open") {
			t.Errorf("wake of an open target: %+v %+v", res, notes)
		}
	})
}

// After 10,000 sessions finish and their TTL passes, the store is back to
// its baseline key count: size follows live work, not history.
func TestStoreSizeReturnsToBaseline(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Second}), context.Background()
		o := fanOut(t, 2, `"all"`, "drain")
		table := reactor.Table(o)
		valid := true
		run := func(key string) {
			res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "P0", Now: t0, IdempotencyKey: key})
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{1})
			if err != nil || len(c) != 1 {
				t.Fatalf("claim: %v %v", c, err)
			}
			if cr, err := s.Commit(ctx, c[0], t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil || cr.Live != 0 {
				t.Fatalf("commit: %+v %v", cr, err)
			}
		}
		afterTTL := t0.Add(2 * time.Second) // the sessions' clock; Redis expires by its own
		run("warm-up")
		time.Sleep(1100 * time.Millisecond)
		s.CollectGarbage(ctx, owner, afterTTL)
		baseline := rdb.DBSize(ctx).Val()
		// Only the owner's rootPid sequence stays forever, and for 90 days
		// the billing meter of the day and its index of owners (one hash
		// and one zset: their size does not grow with the sessions).
		var kept int64
		for _, k := range []string{"xgr:{own:" + owner + "}:seq", "xgr:{own:" + owner + "}:meter:" + joinstore.MeterDay(t0), "xgr:meter:owners:" + joinstore.MeterDay(t0)} {
			kept += rdb.Exists(ctx, k).Val()
		}
		if baseline != 3 || kept != 3 {
			keys, _ := rdb.Keys(ctx, "*").Result()
			t.Fatalf("baseline: %d keys, %d of them the sequence and the meter: %v", baseline, kept, keys)
		}
		for i := 0; i < 10000; i++ {
			run(fmt.Sprint("k", i))
		}
		// Finished sessions stay readable for the TTL (1 s here, so the
		// first ones may already be gone).
		if n := rdb.DBSize(ctx).Val(); n <= baseline+100 {
			t.Fatalf("only %d keys right after 10,000 sessions finished", n)
		}
		time.Sleep(1100 * time.Millisecond)
		// Expired keys disappear lazily or on access; make Redis reclaim them.
		deadline := time.Now().Add(10 * time.Second)
		for rdb.DBSize(ctx).Val() > baseline && time.Now().Before(deadline) {
			s.CollectGarbage(ctx, owner, afterTTL)
			time.Sleep(100 * time.Millisecond)
		}
		if n := rdb.DBSize(ctx).Val(); n != baseline {
			keys, _ := rdb.Keys(ctx, "*").Result()
			t.Fatalf("%d keys after the TTL, baseline %d: %v", n, baseline, keys[:min(len(keys), 20)])
		}
	})
}
