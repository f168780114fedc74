package reactor

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor/sched"
)

// Manager is the session manager of one replica. Several replicas share one
// Redis: each session is run by the replica holding its root lease; a
// replica that dies loses its leases when they expire, and another one takes
// its sessions over, recovering their in-flight processes (the fencing
// tokens reject whatever the dead replica might still try to commit).
type Manager struct {
	Store  *joinstore.Store
	Source Source
	Exec   Executor
	// Replica names this replica in leases (unique per process).
	Replica string
	// RootLease is how long a root lease lasts without renewal (default 10 s);
	// ProcLease the inFlight lease of an execution (default 30 s).
	RootLease, ProcLease time.Duration
	// Poll is how often the replica looks for sessions and due work (default 200 ms).
	Poll time.Duration
	// MaxRoots caps the sessions this replica runs at once (0 = no cap).
	MaxRoots int
	Log      *slog.Logger
	// OnEvent receives every session's timeline (optional; called from
	// several goroutines).
	OnEvent func(joinstore.Root, Event)
	// Lifecycle receives adoptions, lease losses and finished sessions
	// (optional).
	Lifecycle Lifecycle

	// Workers is the number of scheduler workers running the root actors
	// (0 = GOMAXPROCS).
	Workers int

	// Actuator performs steps' executions (nil: executions are off, and a
	// step's execution is reported not performed). Flipper renders the
	// onInvalid branch of a step whose execution reverted; ExecPoll is how
	// often an execution's outcome is polled (default 1 s).
	Actuator execution.Actuator
	Flipper  Flipper
	ExecPoll time.Duration
	// Bundles, when set, stores every committed step's log bundle (its
	// payload, saves, outcome and execution receipt) once its commit
	// succeeded; nil: no bundles.
	Bundles BundleWriter
	// executing counts the executions this replica's sessions hold.
	executing atomic.Int64

	// skew is how far Redis's clock is ahead of this replica's (ns), when
	// more than maxSkew: due times and leases are judged on Redis's clock,
	// so the replica reads them on it too (now).
	skew      atomic.Int64
	skewCheck time.Time
	// wall is the replica's own clock (nil: time.Now; tests set a wrong
	// one).
	wall func() time.Time

	mu     sync.Mutex
	actors map[joinstore.Root]sched.PID
	// roots is actors inverted: an exiting actor's session in O(1) (the
	// scheduler's OnExit names the pid only).
	roots map[sched.PID]joinstore.Root
	// leaving are the actors handing their sessions back: they no longer
	// count against MaxRoots, so the next session starts while they do.
	leaving map[joinstore.Root]bool
	// due are sessions the root index last named as due, not yet tried:
	// a free slot takes the next of them without reading the index again.
	due []joinstore.Root
	// reads counts the root index reads (RootsDueSpread's turn).
	reads int
	// room says a session ended while the replica was at MaxRoots: look
	// for the next one at once rather than at the next poll.
	room   chan struct{}
	halt   chan struct{}
	halted atomic.Bool
	once   sync.Once
	sched  *sched.Scheduler
}

// Halt stops the replica at once, as a crash would: nothing in flight is
// committed and no lease is given back; other replicas take its sessions
// over when the leases expire. Run returns soon after. (For failover tests
// and for operators who must stop a replica that cannot drain.)
func (m *Manager) Halt() {
	m.defaults()
	m.once.Do(func() { m.halted.Store(true); close(m.halt) })
}

func (m *Manager) defaults() {
	if m.RootLease == 0 {
		m.RootLease = 10 * time.Second
	}
	if m.ProcLease == 0 {
		m.ProcLease = 30 * time.Second
	}
	if m.Poll == 0 {
		m.Poll = 200 * time.Millisecond
	}
	if m.ExecPoll == 0 {
		m.ExecPoll = time.Second
	}
	if m.Log == nil {
		m.Log = slog.Default()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.actors == nil {
		m.actors = map[joinstore.Root]sched.PID{}
		m.roots = map[sched.PID]joinstore.Root{}
		m.leaving = map[joinstore.Root]bool{}
		m.halt = make(chan struct{})
		m.room = make(chan struct{}, 1)
	}
}

// Executing returns how many executions this replica's sessions hold now
// (processes in status executing whose outcome it polls).
func (m *Manager) Executing() int64 { return m.executing.Load() }

// Running returns how many sessions this replica runs now.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.actors)
}

// Run finds sessions that need a replica and runs them until ctx ends: one
// root actor per session, as a process of a work-stealing scheduler whose
// yields are the session's IO (Redis transitions, step executions, timers).
// When ctx ends every root actor drains — the executions in flight finish
// and are committed, leases are given back — before Run returns.
func (m *Manager) Run(ctx context.Context) error {
	m.defaults()
	ioCtx, stopIO := context.WithCancel(context.WithoutCancel(ctx))
	defer stopIO()
	m.sched = sched.New(sched.Config{Workers: m.Workers, Handler: ioHandler{ctx: ioCtx, pool: newIOPool(ioCtx)}, OnExit: m.exited})
	ticker := time.NewTicker(m.Poll)
	defer ticker.Stop()
	fresh := true // read the root index again (at a poll), not only what it named last
	m.checkSkew(ctx)
	for {
		if err := m.adopt(ctx, fresh); err != nil && ctx.Err() == nil {
			m.Log.Warn("looking for sessions failed", "err", err)
		}
		fresh = false
		select {
		case <-ctx.Done():
			// Drain: Shutdown cancels every root actor and waits until each
			// has committed what was in flight and given its leases back (at
			// most a lease period: by then other replicas may take over).
			drain, cancel := context.WithTimeout(context.Background(), m.ProcLease+m.RootLease)
			defer cancel()
			if err := m.sched.Shutdown(drain); err != nil {
				m.Log.Warn("some sessions did not drain in time", "err", err)
			}
			return nil
		case <-m.halt:
			stopIO()
			shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			m.sched.Shutdown(shutdown)
			return nil
		case <-ticker.C:
			fresh = true
			if time.Since(m.skewCheck) > skewEvery {
				m.checkSkew(ctx)
			}
		case <-m.room:
		}
	}
}

// exited forgets an actor that ended (the scheduler's OnExit): O(1)
// through the pid's index, so that draining a replica that holds N
// sessions costs N exits, not N².
func (m *Manager) exited(pid sched.PID, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	freed := false
	if r, ok := m.roots[pid]; ok {
		delete(m.roots, pid)
		if m.actors[r] == pid {
			delete(m.actors, r)
			freed = !m.leaving[r] // else its slot was given up already
			delete(m.leaving, r)
		}
	}
	if freed {
		m.makeRoom()
	}
	if err != nil && !errors.Is(err, sched.ErrUnfinished) {
		m.Log.Warn("root actor failed", "err", err)
	}
}

// track records root's actor. Callers hold m.mu.
func (m *Manager) track(r joinstore.Root, pid sched.PID) {
	m.actors[r] = pid
	m.roots[pid] = r
}

// poke tells this replica's actor of root, if it runs one, that work may
// have become due (a wake-up): it looks at once instead of at its next
// poll.
func (m *Manager) poke(root joinstore.Root) {
	m.mu.Lock()
	pid, ok := m.actors[root]
	m.mu.Unlock()
	if ok {
		m.sched.Send(pid, poke{})
	}
}

// poke is the message of Manager.poke.
type poke struct{}

// leave says that root's actor is handing its session back: its slot is
// free for the next session while the release is under way (the session
// itself stays this replica's until the actor exits).
func (m *Manager) leave(root joinstore.Root) {
	m.mu.Lock()
	_, ok := m.actors[root]
	if ok && !m.leaving[root] {
		m.leaving[root] = true
	} else {
		ok = false
	}
	m.mu.Unlock()
	if ok {
		m.makeRoom()
	}
}

// makeRoom wakes Run to fill a freed slot at once rather than at the next
// poll.
func (m *Manager) makeRoom() {
	if m.MaxRoots > 0 {
		select {
		case m.room <- struct{}{}:
		default:
		}
	}
}

// free is how many more sessions this replica may start now (-1: no cap).
// Callers hold m.mu.
func (m *Manager) free() int {
	if m.MaxRoots <= 0 {
		return -1
	}
	return max(m.MaxRoots-(len(m.actors)-len(m.leaving)), 0)
}

// adopt starts a root actor for due sessions whose root leases it gets, as
// many as the free slots allow. fresh reads the root index again; else the
// sessions it named last are tried first. The leases of one round are
// acquired concurrently (one shared pipeline when the store batches).
func (m *Manager) adopt(ctx context.Context, fresh bool) error {
	for {
		if fresh || len(m.due) == 0 {
			// Past a backlog too (RootsDueSpread): a flood of one owner's
			// due sessions does not hide another owner's from fairPick.
			roots, err := m.Store.RootsDueSpread(ctx, m.now(), 256, m.reads)
			m.reads++
			if err != nil {
				return err
			}
			m.due, fresh = roots, false
			if len(roots) == 0 {
				return nil
			}
		}
		m.mu.Lock()
		pick := m.pickDue()
		m.mu.Unlock()
		if len(pick) == 0 {
			return nil
		}
		if err := m.acquire(ctx, pick); err != nil {
			return err
		}
		if len(m.due) == 0 {
			return nil // the next poll reads the index again
		}
	}
}

// pickDue takes from m.due the sessions to start in the free slots, in
// the order fairPick decides (the owners' weights from the store's
// quotas); the rest stay in m.due, in due order. Callers hold m.mu.
func (m *Manager) pickDue() []joinstore.Root {
	running := map[string]int{}
	for r := range m.actors {
		if !m.leaving[r] {
			running[r.Owner]++
		}
	}
	var cand []joinstore.Root
	for _, r := range m.due {
		if _, ok := m.actors[r]; !ok {
			cand = append(cand, r)
		}
	}
	quotas := m.Store.Quotas()
	pick := fairPick(cand, running, quotas.WeightOf, m.free())
	picked := make(map[joinstore.Root]bool, len(pick))
	for _, r := range pick {
		picked[r] = true
	}
	m.due = slices.DeleteFunc(cand, func(r joinstore.Root) bool { return picked[r] })
	return pick
}

// acquire adopts roots concurrently (joinstore.Adopt: lease, opening reads
// and the first claim in one round trip each, sharing pipelines) and starts
// an actor for each one it gets.
func (m *Manager) acquire(ctx context.Context, roots []joinstore.Root) error {
	adopted := make([]joinstore.Adoption, len(roots))
	errs := make([]error, len(roots))
	var wg sync.WaitGroup
	for i, r := range roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			now := m.now()
			adopted[i], errs[i] = m.Store.Adopt(ctx, r, m.Replica, m.RootLease, m.ProcLease, now, now.Add(m.RootLease))
		}()
	}
	wg.Wait()
	var first error
	for i, r := range roots {
		switch err := errs[i]; {
		case errors.Is(err, joinstore.ErrRootHeld):
			continue
		case errors.Is(err, joinstore.ErrFinished):
			m.markFinished(ctx, r)
			continue
		case err != nil:
			first = cmp.Or(first, err)
			continue
		}
		if f := m.Lifecycle.Adopted; f != nil {
			f(r, adopted[i].Meta.PrevHolder, len(adopted[i].Expired))
		}
		m.mu.Lock()
		pid, err := m.sched.Submit(newRootActor(m, r, &adopted[i]), "run", nil)
		if err == nil {
			m.track(r, pid)
		}
		m.mu.Unlock()
		if err != nil {
			// A process it claimed comes back when its lease expires.
			m.Store.ReleaseRoot(ctx, r, m.Replica, adopted[i].Token)
			first = cmp.Or(first, err)
		}
	}
	return first
}

// maxSkew is the clock difference to Redis a replica tolerates unnoticed;
// skewEvery how often it measures it.
const (
	maxSkew   = 500 * time.Millisecond
	skewEvery = 30 * time.Second
)

// now is the replica's clock, corrected to Redis's when they differ by
// more than maxSkew.
func (m *Manager) now() time.Time { return m.wallNow().Add(time.Duration(m.skew.Load())) }

func (m *Manager) wallNow() time.Time {
	if m.wall != nil {
		return m.wall()
	}
	return time.Now()
}

// checkSkew measures how far Redis's clock is from this replica's. Leases
// and due times are Redis's (the scripts judge them on its clock): a
// replica whose clock is minutes slow would find nothing due and claim
// nothing, silently. Over maxSkew it says so and reads on Redis's clock.
func (m *Manager) checkSkew(ctx context.Context) {
	m.skewCheck = time.Now()
	before := m.wallNow()
	srv, err := m.Store.ServerTime(ctx)
	if err != nil {
		return
	}
	after := m.wallNow()
	d := srv.Sub(before.Add(after.Sub(before) / 2))
	old := time.Duration(m.skew.Load())
	if d > -maxSkew && d < maxSkew {
		d = 0
	}
	m.skew.Store(int64(d))
	if d != 0 && (old == 0 || (d-old) > maxSkew || (old-d) > maxSkew) {
		m.Log.Warn("this replica's clock differs from Redis's; due times and leases are read on Redis's clock", "redis_ahead_by", d.Round(time.Millisecond).String())
	} else if d == 0 && old != 0 {
		m.Log.Info("this replica's clock agrees with Redis's again")
	}
}
