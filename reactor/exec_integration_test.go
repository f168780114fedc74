package reactor

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The execution lifecycle through a real store: the serial driver on a
// virtual clock, and replicas that crash while a step executes.

const execOstc = `{"id":"x","structure":{
	"A":{"rule":"x","onValid":{"spawns":["B"]},"onInvalid":{"spawns":["C"]}},
	"B":{"rule":"x"},"C":{"rule":"x"}}}`

// callingExec: step A is valid and executes callA; other steps are valid
// and execute nothing. It counts A's evaluations.
type callingExec struct{ evalsA atomic.Int64 }

func (x *callingExec) Execute(_ context.Context, e Execution) (Result, error) {
	if e.Step.ID != "A" {
		return Result{Valid: true}, nil
	}
	x.evalsA.Add(1)
	c := callA
	return Result{Valid: true, Output: map[string]any{"a": "done"}, Execution: &c, RuleContract: common.HexToAddress("0x01"),
		Inputs: map[string]any{"k": "v"}}, nil
}

// flipper renders onInvalid with an output and, when own, callI.
func flipper(own bool) Flipper {
	return FlipFunc(func(_ context.Context, e Execution, f Flip) (Result, error) {
		r := Result{Output: map[string]any{"flipped": f.Inputs["k"]}}
		if own {
			c := callI
			r.Execution = &c
		}
		return r, nil
	})
}

func runExecSim(t *testing.T, act *scripted.Actuator, flip Flipper) (*sim, map[string]joinstore.Process) {
	t.Helper()
	return runExecSimOn(t, nil, act, flip)
}

// runExecSimOn runs the session on rdb (nil: a redis-server of its own).
func runExecSimOn(t *testing.T, rdb redis.UniversalClient, act execution.Actuator, flip Flipper) (*sim, map[string]joinstore.Process) {
	t.Helper()
	s := newSim(t, execOstc, "")
	if rdb != nil {
		s.store = joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	}
	ctx := context.Background()
	res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: s.clock, XRC729: "0x00000000000000000000000000000000000000f1", MaxTotalGas: 7_777_777})
	if err != nil {
		t.Fatal(err)
	}
	s.root = res.Root
	r := &Runner{Store: s.store, Orch: s.orch, Exec: &callingExec{}, Worker: "test", Actuator: act, Flipper: flip,
		Now: func() time.Time { return s.clock }, Advance: func(at time.Time) { s.clock = at },
		OnEvent: func(e Event) { s.events = append(s.events, e) }}
	if err := r.Run(ctx, s.root); err != nil {
		t.Fatalf("run: %v\n%s", err, s.timeline())
	}
	procs, err := s.store.Processes(ctx, s.root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]joinstore.Process{}
	for _, p := range procs {
		out[p.ResumeStep] = p
	}
	return s, out
}

// TestRunnerExecutes: simulate's driver sends A's call once under its key
// with the session's scope, polls on its virtual clock, and commits A's
// branch with the outcome in its output and on the process.
func TestRunnerExecutes(t *testing.T) {
	testenv.Backends(t, testRunnerExecutes)
}

func testRunnerExecutes(t *testing.T, rdb redis.UniversalClient) {
	act := &scripted.Actuator{Decide: func(execution.Scope, string, execution.Call) scripted.Plan {
		return scripted.Plan{SendFailures: 1, PollFailures: 1, Pending: 3}
	}}
	s, procs := runExecSimOn(t, rdb, act, nil)
	a := procs["A"]
	key := ExecKey(s.root, a.Pid)
	call, sends, ok := act.Sent(key)
	if !ok || sends != 2 || call.To != callA.To || len(act.Keys()) != 1 || len(act.Conflicts()) != 0 {
		t.Fatalf("sent %v %d %+v, keys %v, conflicts %v", ok, sends, call, act.Keys(), act.Conflicts())
	}
	want := scripted.Outcome(key, callA, scripted.Plan{})
	if a.Status != joinstore.StatusDone || a.Execution == nil || a.Execution.Key != key || a.Execution.TxHash != want.TxHash.Hex() {
		t.Fatalf("A: %+v %+v\n%s", a, a.Execution, s.timeline())
	}
	b, ok := procs["B"]
	if !ok {
		t.Fatalf("B not spawned\n%s", s.timeline())
	}
	var in map[string]any
	json.Unmarshal(b.ResumePlain, &in)
	ex, _ := in[OutputExecution].(map[string]any)
	if in["a"] != "done" || ex["txHash"] != want.TxHash.Hex() || ex["status"] != float64(1) {
		t.Fatalf("B's input %s", b.ResumePlain)
	}
	if _, ok := procs["C"]; ok {
		t.Fatal("C spawned on success")
	}
	if !strings.Contains(s.timeline(), "executing 1:1 A onValid") || !strings.Contains(s.timeline(), "exec_outcome") {
		t.Fatalf("timeline:\n%s", s.timeline())
	}
}

// scopeActuator records the scope of each Send.
type scopeActuator struct {
	*scripted.Actuator
	mu     sync.Mutex
	scopes []execution.Scope
}

func (s *scopeActuator) Send(ctx context.Context, sc execution.Scope, key string, c execution.Call) error {
	s.mu.Lock()
	s.scopes = append(s.scopes, sc)
	s.mu.Unlock()
	return s.Actuator.Send(ctx, sc, key, c)
}

// An execution's scope names the session's registry when the session's
// xrc729 is a registry address; a session started from a file ("file",
// "bench": not an address, e.g. "bench" is not 0x…0bench) has none, so
// authority is not read from a contract that is not its registry.
func TestRunnerExecutionScope(t *testing.T) {
	for _, tc := range []struct {
		xrc729   string
		registry common.Address
	}{{"0x00000000000000000000000000000000000000f1", common.HexToAddress("0xf1")}, {"bench", common.Address{}}, {"file", common.Address{}}} {
		act := &scopeActuator{Actuator: &scripted.Actuator{}}
		s := newSim(t, execOstc, "")
		ctx := context.Background()
		res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: s.clock, XRC729: tc.xrc729, MaxTotalGas: 7_777_777})
		if err != nil {
			t.Fatal(err)
		}
		r := &Runner{Store: s.store, Orch: s.orch, Exec: &callingExec{}, Worker: "test", Actuator: act,
			Now: func() time.Time { return s.clock }, Advance: func(at time.Time) { s.clock = at }}
		if err := r.Run(ctx, res.Root); err != nil {
			t.Fatal(err)
		}
		want := execution.Scope{Owner: common.HexToAddress(owner), Session: uint64(res.Root.RootPid), Pid: res.Pid,
			Registry: tc.registry, RuleContract: common.HexToAddress("0x01"), MaxTotalGas: 7_777_777}
		if len(act.scopes) != 1 || act.scopes[0] != want {
			t.Fatalf("xrc729 %q: scopes %+v, want %+v", tc.xrc729, act.scopes, want)
		}
	}
}

// TestRunnerExecutionReverts: a revert flips A to invalid: C is spawned
// with the onInvalid output, whose own execution ran once under "/i".
func TestRunnerExecutionReverts(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		act := &scripted.Actuator{Decide: func(_ execution.Scope, key string, _ execution.Call) scripted.Plan {
			return scripted.Plan{Revert: !strings.HasSuffix(key, FlipKeySuffix), RevertReason: "no"}
		}}
		testRunnerExecutionReverts(t, act, rdb)
	})
}

func testRunnerExecutionReverts(t *testing.T, act *scripted.Actuator, rdb redis.UniversalClient) {
	s, procs := runExecSimOn(t, rdb, act, flipper(true))
	a := procs["A"]
	key := ExecKey(s.root, a.Pid)
	if got := act.Keys(); len(got) != 2 || got[0] != key || got[1] != key+FlipKeySuffix {
		t.Fatalf("keys %v", got)
	}
	if _, ok := procs["B"]; ok {
		t.Fatalf("B spawned after a revert\n%s", s.timeline())
	}
	c, ok := procs["C"]
	if !ok || a.Valid == nil || *a.Valid || !a.Execution.Flipped || a.Execution.Key != key+FlipKeySuffix {
		t.Fatalf("A %+v %+v, C %v\n%s", a, a.Execution, ok, s.timeline())
	}
	var in map[string]any
	json.Unmarshal(c.ResumePlain, &in)
	ex, _ := in[OutputExecution].(map[string]any)
	rv, _ := in[OutputRevertedExecution].(map[string]any)
	if in["flipped"] != "v" || in["a"] != nil || ex["status"] != float64(1) || rv["status"] != float64(0) || rv["revertReason"] != "no" {
		t.Fatalf("C's input %s", c.ResumePlain)
	}
}

// TestRunnerExecutionRefused: a refusal aborts A with the limit named;
// nothing spawns.
func TestRunnerExecutionRefused(t *testing.T) {
	act := &scripted.Actuator{Decide: func(execution.Scope, string, execution.Call) scripted.Plan {
		return scripted.Plan{Refuse: &execution.Refusal{Limit: "executions.allowedTargets", Reason: "target 0xc1 is not allowed"}}
	}}
	s, procs := runExecSim(t, act, nil)
	a := procs["A"]
	if a.Status != joinstore.StatusAborted || !strings.Contains(a.AbortReason, "executions.allowedTargets") || len(procs) != 1 {
		t.Fatalf("A %+v, %d processes\n%s", a, len(procs), s.timeline())
	}
}

// TestManagerExecutionCrash: the replica that sent A's execution stops
// while it is not final; another one takes the process over after its
// lease expired, sends again under the same key with the same call (no
// second, different call), polls and commits — A's rule is evaluated once.
// Then a kill while executing: the outcome is recorded, nothing spawns.
func TestManagerExecutionCrash(t *testing.T) {
	testenv.Backends(t, testManagerExecutionCrash)
}

func testManagerExecutionCrash(t *testing.T, rdb redis.UniversalClient) {
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	o, err := registry.Parse([]byte(execOstc))
	if err != nil {
		t.Fatal(err)
	}
	src := NewStaticSource(o)
	act := &scripted.Actuator{}
	act.Hold.Store(true)
	exec := &callingExec{}
	replica := func(name string) *Manager {
		return &Manager{Store: store, Source: src, Exec: exec, Replica: name, Poll: 10 * time.Millisecond, RootLease: 300 * time.Millisecond,
			ProcLease: 300 * time.Millisecond, Actuator: act, Flipper: flipper(false), ExecPoll: 20 * time.Millisecond, Log: discardLog()}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	roots := startMany(t, store, src, o, 2)
	key := ExecKey(roots[0], roots[0].Pid(1))
	a := replica("A")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); a.Run(ctx) }()
	waitUntil(t, "both sessions executing", func() bool {
		for _, r := range roots {
			if p, err := store.Process(ctx, r, 1); err != nil || p.Status != joinstore.StatusExecuting {
				return false
			}
		}
		_, n, _ := act.Sent(key)
		return n == 1 && a.Executing() == 2
	})
	a.Halt()
	// The second session is killed while it executes.
	if _, err := store.Kill(ctx, roots[1], time.Now()); err != nil {
		t.Fatal(err)
	}
	b := replica("B")
	var mu sync.Mutex
	var taken []string
	b.OnEvent = func(r joinstore.Root, e Event) {
		if e.Type == EvRecovered {
			mu.Lock()
			taken = append(taken, e.Detail)
			mu.Unlock()
		}
	}
	wg.Add(1)
	go func() { defer wg.Done(); b.Run(ctx) }()
	waitUntil(t, "B sends again", func() bool { _, n, _ := act.Sent(key); return n >= 2 })
	act.Hold.Store(false)
	waitFinished(t, store, roots, 30*time.Second)
	cancel()
	wg.Wait()
	ctx = context.Background()
	if c := act.Conflicts(); len(c) != 0 {
		t.Fatalf("a key was sent with another call: %v", c)
	}
	if n := exec.evalsA.Load(); n != 2 {
		t.Fatalf("A evaluated %d times for 2 sessions: a take-over evaluated again", n)
	}
	checkOnce(t, rdb, roots[:1], 2)
	p, err := store.Process(ctx, roots[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != joinstore.StatusDone || p.Execution == nil || p.Execution.Key != key || p.Execution.Outcome == nil {
		t.Fatalf("A after the take-over: %+v %+v", p, p.Execution)
	}
	k, _ := store.Process(ctx, roots[1], 1)
	if k.Status != joinstore.StatusAborted || k.Execution == nil || !strings.Contains(string(k.Execution.Outcome), "txHash") {
		t.Fatalf("killed while executing: %+v %+v", k, k.Execution)
	}
	if procs, _ := store.Processes(ctx, roots[1]); len(procs) != 1 {
		t.Fatalf("a session killed while executing spawned: %d processes", len(procs))
	}
	mu.Lock()
	tookOver := strings.Join(taken, "\n")
	mu.Unlock()
	if !strings.Contains(tookOver, "while it executed; polling "+key) {
		t.Fatalf("B's recovered lines: %q, want the take-over of %s", tookOver, key)
	}
	if b.Executing() != 0 {
		t.Fatalf("B still counts %d executions", b.Executing())
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
