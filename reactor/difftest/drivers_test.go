package difftest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Session caps of both drivers' stores: random orchestrations may loop or
// fan out without end; a commit over a cap kills the session, the same way
// under both drivers.
const (
	capSteps = 60
	capLive  = 30
)

// replicas is how many Managers share the replicas' sessions.
const replicas = 2

// finishWithin bounds one session's run under either driver.
const finishWithin = 60 * time.Second

// env is what every case of a test shares: one redis-server, database 0
// for the replicas (Managers running all the time, as `xgr run` does,
// on Redis's clock) and database 1 for the Runner (a virtual clock, as
// `xgr simulate --deterministic`).
type env struct {
	replica *joinstore.Store
	// replicaRaw reads the replicas' database directly (root leases).
	replicaRaw *redis.Client
	runner     *joinstore.Store
	// runnerRaw and runnerRead reach the Runner's database without the
	// forcing hook.
	runnerRaw  *redis.Client
	runnerRead *joinstore.Store
	hook       *forceHook
	src        *source
	execs      sync.Map // owner -> reactor.Executor (the replicas' executor per case)
	events     *recorder
	owners     atomic.Int64
	// act performs the replicas' executions (one for all cases: each
	// session's keys are its own).
	act *scripted.Actuator
}

// newActuator is a driver's actuator: outcomes from the calldata, hashes
// from the call, so that both drivers see the same.
func newActuator() *scripted.Actuator {
	return &scripted.Actuator{Decide: scripted.ByCallData, TxHash: scripted.CallHash}
}

func newEnv(t testing.TB) *env {
	t.Helper()
	srv := testenv.StartRedis(t)
	client := func(db int) *redis.Client {
		c := redis.NewClient(&redis.Options{Network: srv.Network, Addr: srv.Addr, DB: db, PoolSize: 64})
		t.Cleanup(func() { c.Close() })
		return c
	}
	cfg := joinstore.Config{SessionTTL: time.Hour, MaxSteps: capSteps, MaxLive: capLive}
	replicaCfg := cfg
	replicaCfg.ServerClock = true
	replicaRaw := client(0)
	e := &env{replica: joinstore.New(replicaRaw, replicaCfg), replicaRaw: replicaRaw, src: &source{byID: map[string]*registry.Orchestration{}},
		events: &recorder{byRoot: map[joinstore.Root][]reactor.Event{}}, hook: &forceHook{}, act: newActuator()}
	hooked := client(1)
	hooked.AddHook(e.hook)
	e.runner = joinstore.New(hooked, cfg)
	e.runnerRaw = client(1)
	e.runnerRead = joinstore.New(e.runnerRaw, cfg)

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range replicas {
		m := &reactor.Manager{Store: e.replica, Source: e.src, Exec: dispatch{e}, Replica: fmt.Sprint("replica-", i),
			Poll: 10 * time.Millisecond, RootLease: 10 * time.Second, ProcLease: time.Minute,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), OnEvent: e.events.add,
			Actuator: e.act, Flipper: reactor.ScriptedFlip, ExecPoll: 10 * time.Millisecond}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Run(ctx); err != nil {
				t.Errorf("replica %s: %v", m.Replica, err)
			}
		}()
	}
	t.Cleanup(func() { stop(); wg.Wait() })
	return e
}

// owner returns a fresh owner: each run of a case is a session of its own
// owner, which names its executor.
func (e *env) owner() string {
	return fmt.Sprintf("0x%040x", e.owners.Add(1))
}

// dispatch is the replicas' executor: the executor of the case whose
// session (owner) the execution belongs to.
type dispatch struct{ e *env }

func (d dispatch) Execute(ctx context.Context, x reactor.Execution) (reactor.Result, error) {
	ex, ok := d.e.execs.Load(x.Owner)
	if !ok {
		return reactor.Result{}, fmt.Errorf("difftest: no executor for owner %s", x.Owner)
	}
	return ex.(reactor.Executor).Execute(ctx, x)
}

// source serves every orchestration a case registered, by id.
type source struct {
	mu   sync.Mutex
	byID map[string]*registry.Orchestration
}

func (s *source) add(o *registry.Orchestration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.byID[o.ID]; ok && old.Hash != o.Hash {
		return fmt.Errorf("difftest: two orchestrations with id %q", o.ID)
	}
	s.byID[o.ID] = o
	return nil
}

func (s *source) Orchestration(_ context.Context, _, id string, hash common.Hash) (*registry.Orchestration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w %q", reactor.ErrUnknownOrchestration, id)
	}
	if hash != (common.Hash{}) && hash != o.Hash {
		return nil, fmt.Errorf("%w: %s", reactor.ErrHashMismatch, id)
	}
	return o, nil
}

// recorder keeps each session's timeline in the order the replicas
// emitted it (one session's events are causally ordered: its store
// transitions never overlap).
type recorder struct {
	mu     sync.Mutex
	byRoot map[joinstore.Root][]reactor.Event
}

func (r *recorder) add(root joinstore.Root, e reactor.Event) {
	r.mu.Lock()
	r.byRoot[root] = append(r.byRoot[root], e)
	r.mu.Unlock()
}

func (r *recorder) take(root joinstore.Root) []reactor.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.byRoot[root]
	delete(r.byRoot, root)
	return ev
}

// run is one case through one driver: its final summary and timeline.
type run struct {
	sum      reactor.Summary
	events   []reactor.Event
	executed map[string]int
	tree     string
}

// runReplicas starts the case's session for the replicas, with window 1
// (one execution at a time, but join-creating steps bypass the window),
// and waits until it finished.
func (e *env) runReplicas(ctx context.Context, o *registry.Orchestration, doc outcomes, threaded bool) (run, error) {
	owner := e.owner()
	ex, err := newExecutor(doc, threaded, reactor.SleepContext)
	if err != nil {
		return run{}, err
	}
	e.execs.Store(owner, ex)
	defer e.execs.Delete(owner)
	res, err := session.Starter{Store: e.replica, Source: e.src}.Start(ctx, session.Request{Owner: owner, Registry: "difftest", OstcID: o.ID,
		OstcHash: o.Hash.Hex(), Step: o.Steps[0].ID, Window: 1})
	if err != nil {
		return run{}, err
	}
	deadline := time.Now().Add(finishWithin)
	for {
		meta, err := e.replica.SessionMeta(ctx, res.Root)
		if err != nil {
			return run{}, err
		}
		if meta.Status == joinstore.SessionFinished {
			// The replica's machine records what the last commit did
			// before it gives the root lease back: its timeline is whole
			// once the lease is gone.
			n, err := e.replicaRaw.Exists(ctx, fmt.Sprintf("xgr:{%s:%d}:lease", res.Root.Owner, res.Root.RootPid)).Result()
			if err != nil {
				return run{}, err
			}
			if n == 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			r, _ := e.collect(ctx, e.replica, res.Root, e.events.take(res.Root))
			return r, fmt.Errorf("the replicas did not finish session %s within %v (live %d)\n%s", res.Root, finishWithin, meta.Live, r.tree)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return e.collect(ctx, e.replica, res.Root, e.events.take(res.Root))
}

// collect reads a finished session back.
func (e *env) collect(ctx context.Context, store *joinstore.Store, root joinstore.Root, events []reactor.Event) (run, error) {
	recs, err := store.Processes(ctx, root)
	if err != nil {
		return run{}, err
	}
	sum, err := reactor.Summarize(recs)
	if err != nil {
		return run{}, err
	}
	r := run{sum: sum, events: events, executed: map[string]int{}}
	for _, ev := range events {
		if ev.Type == "executed" {
			r.executed[ev.Pid]++
		}
	}
	r.tree = treeOf(sum, r.executed) + timelineOf(sum, events)
	return r, nil
}

// runRunner runs the case through a reactor.Runner on a virtual clock,
// forced into the order seq (paths) in which the replicas committed; the
// problems say where the Runner could not follow.
func (e *env) runRunner(ctx context.Context, o *registry.Orchestration, doc outcomes, threaded bool, seq []string) (run, []string, error) {
	owner := e.owner()
	ex, err := newExecutor(doc, threaded, nil)
	if err != nil {
		return run{}, nil, err
	}
	t0 := time.UnixMilli(1_800_000_000_000)
	res, err := session.Starter{Store: e.runner, Source: e.src, Now: func() time.Time { return t0 }}.Start(ctx, session.Request{Owner: owner, Registry: "difftest", OstcID: o.ID,
		OstcHash: o.Hash.Hex(), Step: o.Steps[0].ID, Window: 1})
	if err != nil {
		return run{}, nil, err
	}
	f := &forcer{root: res.Root, read: e.runnerRead, raw: e.runnerRaw, seq: seq, clock: t0, executed: map[string]int{}}
	key := dueKey(res.Root)
	e.hook.forcers.Store(key, f)
	defer e.hook.forcers.Delete(key)
	var events []reactor.Event
	r := &reactor.Runner{Store: e.runner, Orch: o, Exec: ex, Worker: "runner", Now: f.now, Advance: f.advance,
		Actuator: newActuator(), Flipper: reactor.ScriptedFlip,
		OnEvent: func(ev reactor.Event) { events = append(events, ev); f.event(ev) }}
	rctx, cancel := context.WithTimeout(ctx, finishWithin)
	defer cancel()
	runErr := r.Run(rctx, res.Root)
	out, err := e.collect(ctx, e.runner, res.Root, events)
	if err != nil {
		return out, nil, err
	}
	problems := f.problems
	if runErr != nil {
		problems = append(problems, "the Runner stopped: "+runErr.Error())
	}
	return out, problems, nil
}
