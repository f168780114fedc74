package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

const owner = "0x00000000000000000000000000000000000000aa"

var t0 = time.UnixMilli(1_800_000_000_000)

// backends runs a test on a single server and on a 3-master cluster.
var backends = testenv.Backends

func newStore(rdb redis.UniversalClient) *Store {
	return New(rdb, Config{SessionTTL: time.Hour})
}

func start(t *testing.T, s *Store, req StartRequest) StartResult {
	t.Helper()
	if req.Owner == "" {
		req.Owner = owner
	}
	if req.StartStep == "" {
		req.StartStep = "A1"
	}
	if req.Now.IsZero() {
		req.Now = t0
	}
	res, err := s.Start(context.Background(), req)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return res
}

func claimAll(t *testing.T, s *Store, root Root, now time.Time, reserve int) []Claim {
	t.Helper()
	ctx := context.Background()
	iters, err := s.DueIters(ctx, root, now, 100)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := s.Claim(ctx, root, now, 30*time.Second, "w1", table(reserve), iters)
	if err != nil {
		t.Fatal(err)
	}
	return claims
}

// table gives every test step the same reservation.
func table(reserve int) StepTable {
	t := StepTable{}
	for _, id := range []string{"A1", "B1", "C1", "D1"} {
		t[id] = StepLimits{Reserve: reserve}
	}
	return t
}

func TestStart(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		a := start(t, s, StartRequest{IdempotencyKey: "k1", Payload: json.RawMessage(`{"User":"alice"}`)})
		if a.Ack != "queued" || a.Pid != "1:1" || a.Root.RootPid != 1 {
			t.Fatalf("first start: %+v", a)
		}
		again := start(t, s, StartRequest{IdempotencyKey: "k1"})
		if again.Ack != "already_queued" || again.Root != a.Root {
			t.Fatalf("idempotent start: %+v", again)
		}
		b := start(t, s, StartRequest{WakeAt: t0.Add(time.Minute)})
		c := start(t, s, StartRequest{Paused: true})
		if b.Ack != "scheduled" || c.Ack != "paused" || b.Root.RootPid != 2 || c.Root.RootPid != 3 {
			t.Fatalf("scheduled/paused: %+v %+v", b, c)
		}
		p, err := s.Process(ctx, a.Root, 1)
		if err != nil || p.Status != StatusWaiting || p.ResumeStep != "A1" || string(p.ResumePlain) != `{"User":"alice"}` || p.JoinGroupID != "0" {
			t.Fatalf("root process: %+v %v", p, err)
		}
		if due, _ := s.DueIters(ctx, b.Root, t0, 10); len(due) != 0 {
			t.Errorf("scheduled session due too early: %v", due)
		}
		if due, _ := s.DueIters(ctx, c.Root, t0.Add(time.Hour), 10); len(due) != 0 {
			t.Errorf("paused session is due: %v", due)
		}
	})
}

func TestStartRejectsBadInputWithoutState(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		for _, req := range []StartRequest{
			{Owner: "a:b", StartStep: "A1", Now: t0},
			{Owner: owner, StartStep: "", Now: t0},
			{Owner: owner, StartStep: "A1", Payload: json.RawMessage(`[1]`), Now: t0},
			{Owner: owner, StartStep: "A1", Payload: json.RawMessage(`{`), Now: t0},
		} {
			if _, err := s.Start(ctx, req); err == nil {
				t.Errorf("Start(%+v) accepted", req)
			}
		}
		if n, _ := rdb.DBSize(ctx).Result(); n != 0 {
			t.Errorf("rejected starts left %d keys", n)
		}
	})
}

func TestClaimCommitChain(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{}).Root

		claims := claimAll(t, s, root, t0, 2)
		if len(claims) != 1 || claims[0].Pid != "1:1" || claims[0].ResumeStep != "A1" || claims[0].FirstChild != 2 || claims[0].Token != 1 {
			t.Fatalf("claim: %+v", claims)
		}
		if again := claimAll(t, s, root, t0, 2); len(again) != 0 {
			t.Fatalf("claimed twice: %+v", again)
		}
		valid := true
		c := claims[0]
		res, err := s.Commit(ctx, c, t0.Add(time.Second), Commit{Status: "done", Valid: &valid, Worker: "w1", Children: []Child{
			{Iter: c.FirstChild, ResumeStep: "B1", ResumePlain: json.RawMessage(`{"x":1}`), JoinGroupID: "0"},
			{Iter: c.FirstChild + 1, ResumeStep: "C1", NextWakeAt: t0.Add(time.Minute), JoinGroupID: "0"},
		}})
		if err != nil || res.Live != 2 || res.Killed || len(res.Claims) != 0 {
			t.Fatalf("commit: %+v %v", res, err)
		}
		if next, ok, err := s.NextDue(ctx, root); err != nil || !ok || !next.Equal(t0.Add(time.Second)) {
			t.Fatalf("next due after the commit: %v %v %v, want %v", next, ok, err, t0.Add(time.Second))
		}
		p, _ := s.Process(ctx, root, 1)
		if p.Status != StatusDone || p.LastStep != "A1" || p.Valid == nil || !*p.Valid || p.Lease != nil {
			t.Errorf("committed process: %+v", p)
		}
		if h, err := s.History(ctx, root); err != nil || len(h) != 1 || h[0].Pid != "1:1" || h[0].Step != "A1" || h[0].Valid != "1" ||
			h[0].Status != "done" || h[0].Worker != "w1" || len(h[0].Children) != 2 || h[0].Children[0] != "1:2" {
			t.Errorf("proc_steps: %+v %v", h, err)
		}
		child, _ := s.Process(ctx, root, 2)
		if child.Pid != "1:2" || child.Iter != 2 || child.ParentPid != "1:1" || child.ThreadHeadPid != "1:2" || child.Status != StatusWaiting || string(child.ResumePlain) != `{"x":1}` {
			t.Errorf("child: %+v", child)
		}
		if ttl := rdb.TTL(ctx, keysOf(root).proc(1)).Val(); ttl <= 0 || ttl > time.Hour {
			t.Errorf("finished record TTL %v, want ≤ 1h", ttl)
		}
		if ttl := rdb.TTL(ctx, keysOf(root).proc(2)).Val(); ttl != -1 {
			t.Errorf("live record must not expire, TTL %v", ttl)
		}

		// B1 is due now, C1 only in a minute.
		claims = claimAll(t, s, root, t0.Add(time.Second), 0)
		if len(claims) != 1 || claims[0].ResumeStep != "B1" {
			t.Fatalf("second claim: %+v", claims)
		}
		if _, err := s.Commit(ctx, claims[0], t0.Add(2*time.Second), Commit{Status: "aborted"}); err != nil {
			t.Fatal(err)
		}
		claims = claimAll(t, s, root, t0.Add(time.Minute), 0)
		res, err = s.Commit(ctx, claims[0], t0.Add(time.Minute), Commit{Status: "done", Valid: new(bool)})
		if err != nil || res.Live != 0 {
			t.Fatalf("last commit: %+v %v", res, err)
		}
		if next, ok, err := s.NextDue(ctx, root); err != nil || ok {
			t.Fatalf("next due after the last commit: %v %v %v, want none", next, ok, err)
		}
		meta := rdb.HGetAll(ctx, keysOf(root).meta()).Val()
		if meta["status"] != "finished" || rdb.TTL(ctx, keysOf(root).meta()).Val() <= 0 {
			t.Errorf("finished session: %v", meta)
		}
		steps := rdb.XRange(ctx, keysOf(root).steps(), "-", "+").Val()
		if len(steps) != 3 || steps[0].Values["children"] != "1:2,1:3" || steps[1].Values["status"] != "aborted" || steps[2].Values["valid"] != "0" {
			t.Errorf("proc_steps: %+v", steps)
		}
	})
}

func TestFencing(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{}).Root
		c := claimAll(t, s, root, t0, 1)[0]

		stale := c
		stale.Token++
		if _, err := s.Commit(ctx, stale, t0, Commit{Status: "done"}); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("commit with a wrong token: %v", err)
		}
		if _, err := s.Renew(ctx, stale, t0, time.Minute); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("renew with a wrong token: %v", err)
		}
		if until, err := s.Renew(ctx, c, t0.Add(time.Second), time.Minute); err != nil || !until.Equal(t0.Add(61*time.Second)) {
			t.Fatalf("renew: %v %v", until, err)
		}
		// An expired lease is lost even before anyone recovers it.
		if _, err := s.Commit(ctx, c, t0.Add(62*time.Second), Commit{Status: "done"}); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("commit after the lease expired: %v", err)
		}
		if _, err := s.Renew(ctx, c, t0.Add(62*time.Second), time.Minute); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("renew after the lease expired: %v", err)
		}
		bad := Commit{Status: "done", Children: []Child{{Iter: c.FirstChild + 1, ResumeStep: "B1"}}}
		if _, err := s.Commit(ctx, c, t0, bad); !errors.Is(err, ErrBadChild) {
			t.Fatalf("child outside the reservation: %v", err)
		}
		// Release returns it to due; the old token is dead from then on.
		if r, err := s.Release(ctx, c, t0, t0); r != Released || err != nil {
			t.Fatalf("release: %v %v", r, err)
		}
		if r, _ := s.Release(ctx, c, t0, t0); r != Stale {
			t.Fatalf("second release reported success")
		}
		c2 := claimAll(t, s, root, t0, 1)[0]
		if c2.Token <= c.Token || c2.FirstChild <= c.FirstChild {
			t.Fatalf("new lease must carry a larger token and a fresh reservation: %+v after %+v", c2, c)
		}
		if _, err := s.Commit(ctx, c, t0, Commit{Status: "done"}); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("stale holder committed: %v", err)
		}
		if _, err := s.Commit(ctx, c2, t0, Commit{Status: "done"}); err != nil {
			t.Fatalf("current holder: %v", err)
		}
		if _, err := s.Commit(ctx, c2, t0, Commit{Status: "done"}); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("second commit: %v", err)
		}
		if n := rdb.XLen(ctx, keysOf(root).steps()).Val(); n != 1 {
			t.Fatalf("proc_steps has %d entries, want exactly one commit", n)
		}
	})
}

func TestKilledWhileRunningCommitsAborted(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{}).Root
		c := claimAll(t, s, root, t0, 1)[0]
		rdb.HSet(ctx, keysOf(root).proc(1), "killedAt", ms(t0))
		res, err := s.Commit(ctx, c, t0, Commit{Status: "done", Children: []Child{{Iter: c.FirstChild, ResumeStep: "B1"}}})
		if err != nil || !res.Killed || res.Live != 0 {
			t.Fatalf("commit of a killed process: %+v %v", res, err)
		}
		if p, _ := s.Process(ctx, root, 1); p.Status != StatusAborted {
			t.Errorf("status %q, want aborted", p.Status)
		}
		if _, err := s.Process(ctx, root, c.FirstChild); !errors.Is(err, ErrNotFound) {
			t.Errorf("a killed process created a child: %v", err)
		}
	})
}

func TestWindow(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{Window: 1}).Root
		c := claimAll(t, s, root, t0, 3)[0]
		s.Commit(ctx, c, t0, Commit{Status: "done", Children: []Child{
			{Iter: 2, ResumeStep: "B1"}, {Iter: 3, ResumeStep: "C1"}, {Iter: 4, ResumeStep: "D1"}}})
		steps := StepTable{"D1": {Bypass: true}}
		claims, err := s.Claim(ctx, root, t0, time.Minute, "w", steps, []int64{2, 3, 4})
		if err != nil || len(claims) != 1 || claims[0].Iter != 2 {
			t.Fatalf("window 1: %+v %v", claims, err)
		}
		claims, _ = s.Claim(ctx, root, t0, time.Minute, "w", steps, []int64{3, 4})
		if len(claims) != 0 {
			// 3 is blocked by the window and claiming stops there (order is kept).
			t.Fatalf("window full: %+v", claims)
		}
		claims, _ = s.Claim(ctx, root, t0, time.Minute, "w", steps, []int64{4})
		if len(claims) != 1 {
			t.Fatalf("a join-creating step must bypass the window: %+v", claims)
		}
	})
}

// Racing claims never hand one process to two workers.
func TestRacingClaims(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{}).Root
		c := claimAll(t, s, root, t0, 32)[0]
		var children []Child
		for i := int64(0); i < 32; i++ {
			children = append(children, Child{Iter: c.FirstChild + i, ResumeStep: "B1"})
		}
		if _, err := s.Commit(ctx, c, t0, Commit{Status: "done", Children: children}); err != nil {
			t.Fatal(err)
		}
		var iters []int64
		for _, ch := range children {
			iters = append(iters, ch.Iter)
		}
		var mu sync.Mutex
		owners := map[int64]int{}
		var wg sync.WaitGroup
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				claims, err := s.Claim(ctx, root, t0, time.Minute, "w", nil, iters)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				for _, cl := range claims {
					owners[cl.Iter]++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		if len(owners) != 32 {
			t.Fatalf("%d of 32 processes claimed", len(owners))
		}
		for it, n := range owners {
			if n != 1 {
				t.Errorf("process %d claimed %d times", it, n)
			}
		}
	})
}

// A worker paused past its lease has its commit rejected while the new
// owner's succeeds (the expired lease is recovered by a fresh claim after
// Release here; the recover transition comes with the reactor wiring).
func TestRedisRestartKeepsState(t *testing.T) {
	srv := testenv.StartRedis(t, testenv.WithAOF())
	rdb := srv.Client()
	s, ctx := newStore(rdb), context.Background()
	root := start(t, s, StartRequest{}).Root
	c := claimAll(t, s, root, t0, 1)[0]
	srv.Restart()
	if _, err := s.Commit(ctx, c, t0, Commit{Status: "done", Children: []Child{{Iter: c.FirstChild, ResumeStep: "B1"}}}); err != nil {
		t.Fatalf("commit after restart: %v", err)
	}
	srv.Restart()
	if p, err := s.Process(ctx, root, c.FirstChild); err != nil || p.Status != StatusWaiting {
		t.Fatalf("child after restart: %+v %v", p, err)
	}
}

// roundTrips counts commands sent to Redis (a pipeline counts once).
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}
func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

func TestRoundTripsPerStep(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		if err := s.Preload(ctx); err != nil {
			t.Fatal(err)
		}
		root := start(t, s, StartRequest{}).Root
		rt := &roundTrips{}
		rdb.AddHook(rt)
		iters, _ := s.DueIters(ctx, root, t0, 10)
		claims, _ := s.Claim(ctx, root, t0, time.Minute, "w", table(1), iters[:1])
		if _, err := s.Commit(ctx, claims[0], t0, Commit{Status: "done", Children: []Child{{Iter: claims[0].FirstChild, ResumeStep: "B1"}}}); err != nil {
			t.Fatal(err)
		}
		// due read + claim + commit; the due read and claim are shared by every
		// process claimed in one batch.
		if n := rt.n.Load(); n != 3 {
			t.Fatalf("%d round trips for one step, want 3 (due, claim, commit)", n)
		}
	})
}

// The store works through Sentinel (a go-redis universal client with a
// master name): a session starts, runs a step and finishes.
func TestThroughSentinel(t *testing.T) {
	rdb := testenv.StartSentinel(t).Client(t)
	s, ctx := newStore(rdb), context.Background()
	root := start(t, s, StartRequest{}).Root
	c := claimAll(t, s, root, t0, 0)
	if len(c) != 1 {
		t.Fatalf("claim through sentinel: %+v", c)
	}
	res, err := s.Commit(ctx, c[0], t0, Commit{Status: "done"})
	if err != nil || res.Live != 0 {
		t.Fatalf("commit through sentinel: %+v %v", res, err)
	}
}
