package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

func bundleStore(t *testing.T, rdb redis.UniversalClient) *evidence.Store {
	t.Helper()
	s, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), DefaultDays: 1, MaxDays: 2})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bundlesOf reads every bundle of a session by iteration.
func bundlesOf(t *testing.T, rdb redis.UniversalClient, ev *evidence.Store, r joinstore.Root) map[int64]evidence.Bundle {
	t.Helper()
	ctx := context.Background()
	keys, err := redisscan.Keys(ctx, rdb, fmt.Sprintf("xgr:log:{%s:%d}:*", r.Owner, r.RootPid))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]evidence.Bundle{}
	for _, k := range keys {
		var it int64
		if _, err := fmt.Sscanf(k, fmt.Sprintf("xgr:log:{%s:%d}:%%d", r.Owner, r.RootPid), &it); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		body, err := ev.Body(ctx, r.Owner, r.RootPid, it)
		if err != nil {
			t.Fatal(err)
		}
		var b evidence.Bundle
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 0 || ttl > 48*time.Hour {
			t.Fatalf("%s: TTL %s, want at most the 2-day cap", k, ttl)
		}
		out[it] = b
	}
	return out
}

// checkExecuted: every bundle's executed is the ordinal of its step's
// commit in the session's history (proc_steps), the session's count of
// committed steps with it included, and steps its meta's count.
func checkExecuted(t *testing.T, rdb redis.UniversalClient, r joinstore.Root, got map[int64]evidence.Bundle) {
	t.Helper()
	ctx := context.Background()
	entries, err := rdb.XRange(ctx, fmt.Sprintf("xgr:{%s:%d}:steps", r.Owner, r.RootPid), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	byPid := map[string]evidence.Bundle{}
	for _, b := range got {
		byPid[b.Pid] = b
	}
	n := int64(0)
	for _, e := range entries {
		if _, ok := e.Values["status"]; !ok {
			continue // a wake-up's line
		}
		n++
		pid, _ := e.Values["pid"].(string)
		if b, ok := byPid[pid]; !ok || b.Executed != n {
			t.Fatalf("session %s: commit %d is %s, its bundle says executed %d (found %v)", r, n, pid, b.Executed, ok)
		}
	}
	if n != int64(len(got)) {
		t.Fatalf("session %s: %d commits, %d bundles", r, n, len(got))
	}
	steps, _ := rdb.HGet(ctx, fmt.Sprintf("xgr:{%s:%d}:meta", r.Owner, r.RootPid), "steps").Int64()
	if steps != n {
		t.Fatalf("session %s: meta steps %d, %d commits", r, steps, n)
	}
}

// The serial driver stores one bundle per executed step, each with the
// step's input payload and outcome, and none while bundles are off.
func TestRunnerWritesOneBundlePerCommittedStep(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint("bundles=", on), func(t *testing.T) {
			s := newSim(t, "nested_join.json", "")
			rdb := testenv.StartRedis(t).Client()
			s.store = joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
			ev := bundleStore(t, rdb)
			ctx := context.Background()
			exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid","payload":{"seen":1}}}`))
			res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: s.orch.Steps[0].ID, Now: s.clock, OstcHash: s.orch.Hash.Hex(),
				Payload: json.RawMessage(`{"amount":12345678901234567890123}`)})
			if err != nil {
				t.Fatal(err)
			}
			executed := map[string]string{}
			r := &Runner{Store: s.store, Orch: s.orch, Exec: exec, Worker: "test",
				Now: func() time.Time { return s.clock }, Advance: func(t time.Time) { s.clock = t },
				OnEvent: func(e Event) {
					if e.Type == EvExecuted {
						executed[e.Pid] = e.Step
					}
				}}
			if on {
				r.Bundles = ev
			}
			if err := r.Run(ctx, res.Root); err != nil {
				t.Fatal(err)
			}
			got := bundlesOf(t, rdb, ev, res.Root)
			if !on {
				if len(got) != 0 {
					t.Fatalf("bundles off: %d bundles stored", len(got))
				}
				return
			}
			if len(executed) < 5 || len(got) != len(executed) {
				t.Fatalf("%d bundles for %d executed steps %v", len(got), len(executed), executed)
			}
			checkExecuted(t, rdb, res.Root, got)
			for it, b := range got {
				if step, ok := executed[b.Pid]; !ok || step != b.Step || b.Iter != it {
					t.Fatalf("bundle %d: pid %s step %s; executed %v", it, b.Pid, b.Step, executed)
				}
				if b.Outcome.Result != evidence.Valid || string(b.Outcome.Output) != `{"seen":1}` {
					t.Fatalf("bundle %d (%s): outcome %+v", it, b.Step, b.Outcome)
				}
				if ttl := rdb.PTTL(ctx, evidence.Key(owner, res.Root.RootPid, it)).Val(); ttl > 24*time.Hour {
					t.Fatalf("bundle %d: TTL %s, want the 1-day default", it, ttl)
				}
				if it == 1 && string(b.Payload) != `{"amount":12345678901234567890123}` {
					t.Fatalf("root bundle payload %s", b.Payload)
				}
			}
		})
	}
}

// The replica driver stores one bundle per executed step of every session,
// on one server and on a Redis Cluster (the commit's MULTI/EXEC is in the
// session's slot).
func TestManagerWritesOneBundlePerCommittedStep(t *testing.T) {
	t.Run("single", func(t *testing.T) { managerBundles(t, testenv.StartRedis(t).Client()) })
	t.Run("cluster", func(t *testing.T) { managerBundles(t, testenv.StartCluster(t, 3).Client(t)) })
}

func managerBundles(t *testing.T, rdb redis.UniversalClient) {
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ev := bundleStore(t, rdb)
	o := loadExample(t, "nested_join.json")
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	roots := startMany(t, store, src, o, 20)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{Store: store, Source: src, Exec: exec, Replica: "r1", Poll: 20 * time.Millisecond, Bundles: ev}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFinished(t, store, roots, 60*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, r := range roots {
		n := rdb.XLen(context.Background(), fmt.Sprintf("xgr:{%s:%d}:steps", r.Owner, r.RootPid)).Val()
		got := bundlesOf(t, rdb, ev, r)
		if n == 0 || int64(len(got)) != n {
			t.Fatalf("session %s: %d bundles for %d committed steps", r, len(got), n)
		}
		checkExecuted(t, rdb, r, got)
	}
}

// startBundled starts a session of nested_join.json on a fresh Redis with a
// bundle store.
func startBundled(t *testing.T) (*redis.Client, *joinstore.Store, *evidence.Store, *registry.Orchestration, joinstore.StartResult, time.Time) {
	t.Helper()
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	o := loadExample(t, "nested_join.json")
	now := time.UnixMilli(1_800_000_000_000)
	res, err := store.Start(context.Background(), joinstore.StartRequest{Owner: owner, StartStep: o.Steps[0].ID, Now: now, OstcHash: o.Hash.Hex()})
	if err != nil {
		t.Fatal(err)
	}
	return rdb, store, bundleStore(t, rdb), o, res, now
}

// A commit fenced off (its lease was taken over) stores no bundle; the
// holder's commit stores it.
func TestFencedCommitWritesNoBundle(t *testing.T) {
	rdb, store, ev, o, res, now := startBundled(t)
	ctx := context.Background()
	table := Table(o)
	old, err := store.Claim(ctx, res.Root, now, time.Second, "old", table, []int64{1})
	if err != nil || len(old) != 1 {
		t.Fatalf("claim: %v %v", old, err)
	}
	later := now.Add(5 * time.Second)
	if _, err := store.Recover(ctx, res.Root, later); err != nil {
		t.Fatal(err)
	}
	cur, err := store.Claim(ctx, res.Root, later, time.Minute, "new", table, []int64{1})
	if err != nil || len(cur) != 1 {
		t.Fatalf("take-over claim: %v %v", cur, err)
	}
	clock := later
	io := &sessionIO{store: store, root: res.Root, orch: o, table: table, clock: func() time.Time { return clock },
		log: discardLog(), bundles: ev}
	commitOf := func(c joinstore.Claim, worker string) cmdCommit {
		r := result{claim: c, res: Result{Valid: true}, input: map[string]any{}, inputRaw: c.ResumePlain}
		commit, _, _ := commitFor(c, o.Step(c.ResumeStep), payloadChecks{store.CheckPayload, store.CheckPayloadSize}, r, clock, worker)
		return cmdCommit{Claim: c, Commit: commit, Bundle: bundleFor(res.Root, o.Step(c.ResumeStep), r, commit, clock)}
	}
	in := io.carry(ctx, commitOf(old[0], "old")).(inCommitted)
	if !errors.Is(in.Err, joinstore.ErrLeaseLost) {
		t.Fatalf("fenced commit: %v, want ErrLeaseLost", in.Err)
	}
	if got := bundlesOf(t, rdb, ev, res.Root); len(got) != 0 {
		t.Fatalf("fenced commit stored %d bundles", len(got))
	}
	gs := grant.New(rdb)
	if g, err := gs.Get(ctx, evidence.AttemptRID(owner, res.Root.RootPid, 1, old[0].Token), grant.ScopeLog, owner); err != nil || g != nil {
		t.Fatalf("the fenced commit's grant is left: %+v %v", g, err)
	}
	in = io.carry(ctx, commitOf(cur[0], "new")).(inCommitted)
	if in.Err != nil {
		t.Fatal(in.Err)
	}
	got := bundlesOf(t, rdb, ev, res.Root)
	if len(got) != 1 || got[1].Outcome.Result != evidence.Valid {
		t.Fatalf("holder's commit: bundles %+v", got)
	}
	h, err := ev.Head(ctx, owner, res.Root.RootPid, 1)
	if err != nil || h.Status != "done" || h.RID != evidence.AttemptRID(owner, res.Root.RootPid, 1, cur[0].Token) {
		t.Fatalf("holder's bundle head %+v %v", h, err)
	}
	// The old holder tries again after the holder committed: fenced, and
	// the holder's bundle and grant are as they were.
	body, _ := ev.Body(ctx, owner, res.Root.RootPid, 1)
	in = io.carry(ctx, commitOf(old[0], "old")).(inCommitted)
	if !errors.Is(in.Err, joinstore.ErrLeaseLost) {
		t.Fatalf("fenced commit after the holder's: %v, want ErrLeaseLost", in.Err)
	}
	if again, _ := ev.Body(ctx, owner, res.Root.RootPid, 1); again != body {
		t.Fatal("a fenced commit changed the holder's bundle")
	}
	if g, err := gs.Get(ctx, h.RID, grant.ScopeLog, owner); err != nil || g == nil || !g.IsOwner {
		t.Fatalf("the holder's owner grant: %+v %v", g, err)
	}
}

// A step killed while it ran is committed aborted: its bundle keeps what
// its rule decided, and its record says aborted and why.
func TestKilledStepBundleSaysAborted(t *testing.T) {
	rdb, store, ev, o, res, now := startBundled(t)
	ctx := context.Background()
	table := Table(o)
	cl, err := store.Claim(ctx, res.Root, now, time.Minute, "r1", table, []int64{1})
	if err != nil || len(cl) != 1 {
		t.Fatalf("claim: %v %v", cl, err)
	}
	if _, err := store.KillSession(ctx, res.Root, now, "operator"); err != nil {
		t.Fatal(err)
	}
	io := &sessionIO{store: store, root: res.Root, orch: o, table: table, clock: func() time.Time { return now }, log: discardLog(), bundles: ev}
	r := result{claim: cl[0], res: Result{Valid: true}, input: map[string]any{}, inputRaw: cl[0].ResumePlain}
	commit, _, _ := commitFor(cl[0], o.Step(cl[0].ResumeStep), payloadChecks{store.CheckPayload, store.CheckPayloadSize}, r, now, "r1")
	in := io.carry(ctx, cmdCommit{Claim: cl[0], Commit: commit, Bundle: bundleFor(res.Root, o.Step(cl[0].ResumeStep), r, commit, now)}).(inCommitted)
	if in.Err != nil || !in.Res.Killed || !in.Res.Bundle {
		t.Fatalf("killed commit: %+v %v", in.Res, in.Err)
	}
	h, err := ev.Head(ctx, owner, res.Root.RootPid, 1)
	if err != nil || h.Status != "aborted" || h.AbortReason != "killed" {
		t.Fatalf("head %+v %v, want status aborted, reason killed", h, err)
	}
	if got := bundlesOf(t, rdb, ev, res.Root); got[1].Outcome.Result != evidence.Valid {
		t.Fatalf("bundle outcome %+v, want what the rule decided", got[1].Outcome)
	}
}

// evidenceExec adds the evaluation's part of the bundle to callingExec's
// results.
type evidenceExec struct{ callingExec }

func (x *evidenceExec) Execute(ctx context.Context, e Execution) (Result, error) {
	r, err := x.callingExec.Execute(ctx, e)
	r.Evidence = &EvidenceInput{Rule: "0x0000000000000000000000000000000000000001", APISaves: json.RawMessage(`{"fx":"1.08"}`),
		Policy: evidence.Policy{ExpireDays: 2}}
	return r, err
}

// An executing step's bundle carries its execution's receipt and the
// evaluation's saves and policy, kept in the execution record until the
// outcome was final.
func TestExecutedStepBundleHasReceipt(t *testing.T) {
	s := newSim(t, execOstc, "")
	rdb := testenv.StartRedis(t).Client()
	s.store = joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ev := bundleStore(t, rdb)
	ctx := context.Background()
	res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: s.clock, XRC729: "0x00000000000000000000000000000000000000f1"})
	if err != nil {
		t.Fatal(err)
	}
	act := &scripted.Actuator{Decide: func(execution.Scope, string, execution.Call) scripted.Plan { return scripted.Plan{Pending: 2} }}
	r := &Runner{Store: s.store, Orch: s.orch, Exec: &evidenceExec{}, Worker: "test", Actuator: act, Bundles: ev,
		Now: func() time.Time { return s.clock }, Advance: func(at time.Time) { s.clock = at }}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	got := bundlesOf(t, rdb, ev, res.Root)
	a, ok := got[1]
	want := scripted.Outcome(ExecKey(res.Root, "1:1"), callA, scripted.Plan{})
	if !ok || a.Step != "A" || a.Receipt == nil || a.Receipt.TxHash != want.TxHash.Hex() || a.Receipt.Status != "success" || a.Receipt.Block != want.Block {
		t.Fatalf("A's bundle: %+v receipt %+v, want tx %s", a, a.Receipt, want.TxHash.Hex())
	}
	if string(a.APISaves) != `{"fx":"1.08"}` || a.Rule != "0x0000000000000000000000000000000000000001" {
		t.Fatalf("A's bundle: saves %s rule %s", a.APISaves, a.Rule)
	}
	if ttl := rdb.PTTL(ctx, evidence.Key(owner, res.Root.RootPid, 1)).Val(); ttl < 47*time.Hour {
		t.Fatalf("A's bundle TTL %s, want its branch's 2 days", ttl)
	}
	if b, ok := got[2]; !ok || b.Step != "B" || b.Receipt != nil {
		t.Fatalf("B's bundle: %+v", b)
	}
}

// gasExec is evidenceExec with the rule's validation gas.
type gasExec struct{ evidenceExec }

func (x *gasExec) Execute(ctx context.Context, e Execution) (Result, error) {
	r, err := x.evidenceExec.Execute(ctx, e)
	r.ValidationGas = 20_000
	return r, err
}

// A step's gas is its validation gas plus its transaction's gas used: kept
// through the execution record until the outcome is final, in its bundle,
// its proc_steps entry and the session's gasUsed.
func TestExecutedStepGas(t *testing.T) {
	s := newSim(t, execOstc, "")
	rdb := testenv.StartRedis(t).Client()
	s.store = joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ev := bundleStore(t, rdb)
	ctx := context.Background()
	res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: s.clock, XRC729: "0x00000000000000000000000000000000000000f1"})
	if err != nil {
		t.Fatal(err)
	}
	act := &scripted.Actuator{Decide: func(execution.Scope, string, execution.Call) scripted.Plan { return scripted.Plan{Pending: 2} }}
	r := &Runner{Store: s.store, Orch: s.orch, Exec: &gasExec{}, Worker: "test", Actuator: act, Bundles: ev,
		Now: func() time.Time { return s.clock }, Advance: func(at time.Time) { s.clock = at }}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	used := scripted.Outcome(ExecKey(res.Root, "1:1"), callA, scripted.Plan{}).GasUsed
	if used == 0 {
		t.Fatal("the scripted execution used no gas")
	}
	got := bundlesOf(t, rdb, ev, res.Root)
	if a := got[1]; a.ValidationGas != 20_000 || a.Gas != 20_000+used {
		t.Fatalf("A's bundle: validation gas %d, gas %d; want 20000, %d", a.ValidationGas, a.Gas, 20_000+used)
	}
	if b := got[2]; b.ValidationGas != 20_000 || b.Gas != 20_000 {
		t.Fatalf("B's bundle: validation gas %d, gas %d; want 20000 each", b.ValidationGas, b.Gas)
	}
	meta, err := s.store.SessionMeta(ctx, res.Root)
	if err != nil || meta.GasUsed != int64(40_000+used) {
		t.Fatalf("gasUsed %d (%v), want %d", meta.GasUsed, err, 40_000+used)
	}
}
