package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
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

	mu     sync.Mutex
	actors map[joinstore.Root]*actor
	wg     sync.WaitGroup
	halt   chan struct{}
	once   sync.Once
}

// Halt stops the replica at once, as a crash would: nothing in flight is
// committed and no lease is given back; other replicas take its sessions
// over when the leases expire. Run returns soon after. (For failover tests
// and for operators who must stop a replica that cannot drain.)
func (m *Manager) Halt() {
	m.defaults()
	m.once.Do(func() { close(m.halt) })
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
	if m.Log == nil {
		m.Log = slog.Default()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.actors == nil {
		m.actors = map[joinstore.Root]*actor{}
		m.halt = make(chan struct{})
	}
}

// Running returns how many sessions this replica runs now.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.actors)
}

// Run finds sessions that need a replica and runs them until ctx ends; then
// every root actor finishes the executions in flight, commits them, and
// gives its leases back (a graceful drain).
func (m *Manager) Run(ctx context.Context) error {
	m.defaults()
	ticker := time.NewTicker(m.Poll)
	defer ticker.Stop()
	for {
		if err := m.adopt(ctx); err != nil && ctx.Err() == nil {
			m.Log.Warn("looking for sessions failed", "err", err)
		}
		select {
		case <-ctx.Done():
			m.wg.Wait()
			return nil
		case <-m.halt:
			m.wg.Wait()
			return nil
		case <-ticker.C:
		}
	}
}

// adopt starts a root actor for each due session whose root lease it gets.
func (m *Manager) adopt(ctx context.Context) error {
	roots, err := m.Store.RootsDue(ctx, time.Now(), 256)
	if err != nil {
		return err
	}
	for _, r := range roots {
		m.mu.Lock()
		_, running := m.actors[r]
		full := m.MaxRoots > 0 && len(m.actors) >= m.MaxRoots
		m.mu.Unlock()
		if running || full {
			continue
		}
		token, err := m.Store.AcquireRoot(ctx, r, m.Replica, m.RootLease)
		switch {
		case errors.Is(err, joinstore.ErrRootHeld):
			continue
		case errors.Is(err, joinstore.ErrFinished):
			m.Store.UnmarkRoot(ctx, r)
			continue
		case err != nil:
			return err
		}
		a := &actor{m: m, root: r, token: token, results: make(chan result, 64)}
		m.mu.Lock()
		m.actors[r] = a
		m.mu.Unlock()
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			a.run(ctx)
			m.mu.Lock()
			delete(m.actors, r)
			m.mu.Unlock()
		}()
	}
	return nil
}

// actor runs one session on this replica: it claims due processes up to the
// session's window, executes them concurrently, and applies their results
// one at a time, in the order they arrive.
type actor struct {
	m     *Manager
	root  joinstore.Root
	token int64
	orch  *registry.Orchestration
	table joinstore.StepTable

	inflight map[int64]joinstore.Claim
	results  chan result
	// ready are iters known to be due now (children just committed, targets
	// just promoted): they are claimed without reading the due set first.
	ready []int64
}

type result struct {
	claim joinstore.Claim
	res   Result
	err   error
	input map[string]any
}

func (a *actor) emit(e Event) {
	if a.m.OnEvent != nil {
		a.m.OnEvent(a.root, e)
	}
}

func (a *actor) run(ctx context.Context) {
	log := a.m.Log.With("session", a.root.String())
	if err := a.setup(ctx); err != nil {
		log.Error("cannot run session", "err", err)
		a.release(context.WithoutCancel(ctx))
		return
	}
	a.inflight = map[int64]joinstore.Claim{}
	renewRoot := time.NewTicker(a.m.RootLease / 3)
	defer renewRoot.Stop()
	renewProcs := time.NewTicker(a.m.ProcLease / 3)
	defer renewProcs.Stop()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		wait := a.m.RootLease / 3
		if ctx.Err() == nil {
			next, ok, err := a.claim(ctx)
			if err != nil {
				log.Warn("claim failed", "err", err)
			}
			if ok {
				wait = min(wait, max(time.Until(next), time.Millisecond))
			}
			if len(a.inflight) == 0 && (!ok || time.Until(next) > a.m.RootLease) {
				// Nothing runs and nothing is due soon: hand the session
				// back; the root index brings it back when it is due.
				a.release(context.WithoutCancel(ctx))
				return
			}
		} else if len(a.inflight) == 0 {
			a.release(context.WithoutCancel(ctx))
			return
		}
		timer.Reset(wait)
		select {
		case r := <-a.results:
			// Results are applied even while draining: the execution happened.
			if err := a.apply(context.WithoutCancel(ctx), r); err != nil {
				log.Warn("applying a result failed", "pid", r.claim.Pid, "err", err)
			}
		case <-renewRoot.C:
			if _, err := a.m.Store.AcquireRoot(ctx, a.root, a.m.Replica, a.m.RootLease); err != nil && ctx.Err() == nil {
				if errors.Is(err, joinstore.ErrRootHeld) {
					// Another replica took the session (we were too slow to
					// renew); its fencing tokens void our in-flight work.
					log.Warn("lost the root lease", "err", err)
					return
				}
				if !errors.Is(err, joinstore.ErrFinished) {
					log.Warn("root lease renewal failed", "err", err)
				}
			}
			a.m.Store.MarkRoot(ctx, a.root, time.Now().Add(a.m.RootLease))
			// Processes a dead replica left running come back once their
			// leases expire; deliveries pushed by others (a kill) are applied.
			if err := a.recover(ctx); err != nil && ctx.Err() == nil {
				log.Warn("recovery failed", "err", err)
			}
		case <-renewProcs.C:
			for _, c := range a.inflight {
				if _, err := a.m.Store.Renew(ctx, c, time.Now(), a.m.ProcLease); err != nil {
					log.Warn("lease renewal failed", "pid", c.Pid, "err", err)
				}
			}
		case <-timer.C:
		case <-ctx.Done():
		case <-a.m.halt:
			return
		}
	}
}

// setup loads the orchestration, recovers processes a dead replica left
// running, and applies join deliveries it left pending.
func (a *actor) setup(ctx context.Context) error {
	meta, err := a.m.Store.Session(ctx, a.root)
	if err != nil {
		return err
	}
	a.orch, err = a.m.Source.Orchestration(ctx, meta["xrc729"], meta["ostcId"], common.HexToHash(meta["ostcHash"]))
	if err != nil {
		return err
	}
	a.table = Table(a.orch)
	a.m.Store.MarkRoot(ctx, a.root, time.Now().Add(a.m.RootLease))
	return a.recover(ctx)
}

// recover returns processes whose lease expired to the due set and applies
// pending join deliveries.
func (a *actor) recover(ctx context.Context) error {
	if _, err := a.m.Store.Recover(ctx, a.root, time.Now()); err != nil {
		return err
	}
	pending, err := a.m.Store.PendingJoins(ctx, a.root)
	if err != nil {
		return err
	}
	work := make([]joinstore.FollowUp, 0, len(pending))
	for _, t := range pending {
		work = append(work, joinstore.FollowUp{Target: t})
	}
	return a.joins(ctx, work)
}

// claim claims the due processes the window allows and starts executing
// them; it returns the earliest due time of what still waits.
func (a *actor) claim(ctx context.Context) (time.Time, bool, error) {
	now := time.Now()
	var iters []int64
	var next time.Time
	var ok bool
	if len(a.ready) > 0 {
		// Known due work: claim it directly; the due set is read once it is
		// used up (nothing is lost: claim skips what is not due).
		iters, a.ready = a.ready, nil
		next, ok = now, true
	} else {
		var err error
		iters, next, ok, err = a.m.Store.Due(ctx, a.root, now, 64)
		if err != nil || len(iters) == 0 {
			return next, ok, err
		}
	}
	var fresh []int64
	for _, it := range iters {
		if _, busy := a.inflight[it]; !busy {
			fresh = append(fresh, it)
		}
	}
	claims, err := a.m.Store.Claim(ctx, a.root, now, a.m.ProcLease, a.m.Replica, a.table, fresh)
	if err != nil {
		return next, ok, err
	}
	for _, c := range claims {
		a.inflight[c.Iter] = c
		a.emit(Event{At: now, Type: "claimed", Pid: c.Pid, Step: c.ResumeStep})
		go a.execute(ctx, c)
	}
	if len(claims) < len(fresh) {
		// The window is full: what is left is due now, once a slot frees.
		return now.Add(a.m.Poll), true, nil
	}
	return next, ok, nil
}

func (a *actor) execute(ctx context.Context, c joinstore.Claim) {
	r := result{claim: c}
	step := a.orch.Step(c.ResumeStep)
	if step == nil {
		r.err = fmt.Errorf("%s runs step %q, which orchestration %q does not have", c.Pid, c.ResumeStep, a.orch.ID)
	} else if err := json.Unmarshal(c.ResumePlain, &r.input); err != nil {
		r.err = fmt.Errorf("%s: resumePlain: %w", c.Pid, err)
	} else {
		r.res, r.err = a.m.Exec.Execute(context.WithoutCancel(ctx), Execution{Owner: a.root.Owner, Pid: c.Pid, Step: step, Payload: r.input, Orchestration: a.orch})
	}
	select {
	case a.results <- r:
	case <-a.m.halt:
	}
}

// apply commits one execution's result and runs the join steps it causes.
func (a *actor) apply(ctx context.Context, r result) error {
	delete(a.inflight, r.claim.Iter)
	now := time.Now()
	c := r.claim
	step := a.orch.Step(c.ResumeStep)
	commit, detail := commitFor(c, step, r, now, a.m.Replica)
	a.emit(Event{At: now, Type: "executed", Pid: c.Pid, Step: c.ResumeStep, Detail: detail})
	cr, err := a.m.Store.Commit(ctx, c, now, commit)
	if errors.Is(err, joinstore.ErrLeaseLost) {
		// Lease lost: another holder owns the process now; our result is void.
		a.emit(Event{At: now, Type: "ignored", Pid: c.Pid, Detail: "lease lost; result discarded"})
		return nil
	}
	if err != nil {
		if _, rerr := a.m.Store.Release(ctx, c, now, now); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	var work []joinstore.FollowUp
	if !cr.Killed {
		for _, ch := range commit.Children {
			a.emit(Event{At: now, Type: "spawned", Pid: c.Root.Pid(ch.Iter), Step: ch.ResumeStep})
			switch {
			case ch.Join != nil:
				work = append(work, joinstore.FollowUp{Target: ch.Iter})
			case !ch.NextWakeAt.After(now):
				a.ready = append(a.ready, ch.Iter)
			}
		}
	}
	if cr.DeliveredTo != 0 {
		work = append(work, joinstore.FollowUp{Target: cr.DeliveredTo})
	}
	return a.joins(ctx, work)
}

// commitFor turns an execution's outcome into the commit of its process:
// payload flow and the children of the selected branch.
func commitFor(c joinstore.Claim, step *registry.Step, r result, now time.Time, worker string) (joinstore.Commit, string) {
	commit := joinstore.Commit{Status: "done", Worker: worker}
	next, detail := r.input, "valid"
	if r.err != nil || step == nil {
		commit.Status = "aborted"
		detail = fmt.Sprint(r.err)
	} else {
		next = NextPayload(r.input, r.res.Output)
		commit.Valid = &r.res.Valid
		if !r.res.Valid {
			detail = "invalid"
		}
	}
	commit.Payload = MarshalPayload(next)
	if step != nil {
		commit.Children = Children(step, r.err != nil, r.res.Valid, Parent{Group: c.JoinGroupID, FirstChild: c.FirstChild}, commit.Payload, now, r.res.Wait)
	}
	return commit, detail
}

// joins runs join steps until no follow-up remains.
func (a *actor) joins(ctx context.Context, work []joinstore.FollowUp) error {
	for len(work) > 0 {
		f := work[0]
		work = work[1:]
		decide := func(v joinstore.JoinView) (joinstore.JoinApply, error) {
			if f.Kill {
				return KillGroup(v)
			}
			ap, _, err := DecideJoin(v, a.orch.CanReach)
			return ap, err
		}
		now := time.Now()
		res, err := a.m.Store.JoinStep(ctx, a.root, f.Target, now, a.m.ProcLease, decide)
		switch {
		case errors.Is(err, joinstore.ErrNotFound), errors.Is(err, joinstore.ErrJoinBusy):
			continue
		case err != nil:
			return err
		}
		for _, v := range res.Verdicts {
			switch v {
			case joinstore.VerdictSatisfied:
				a.emit(Event{At: now, Type: "join_closed", Pid: a.root.Pid(f.Target)})
				a.ready = append(a.ready, f.Target) // claim skips it if its nextWakeAt is later
			case joinstore.VerdictUnfulfillable:
				a.emit(Event{At: now, Type: "join_aborted", Pid: a.root.Pid(f.Target)})
			}
		}
		work = append(work, res.FollowUps...)
	}
	return nil
}

// release hands the session back: its root lease goes, and the root index
// says when another replica should look at it (its next due time).
func (a *actor) release(ctx context.Context) {
	next, ok, err := a.m.Store.NextDue(ctx, a.root)
	meta, merr := a.m.Store.Session(ctx, a.root)
	switch {
	case err != nil || merr != nil:
	case meta["live"] == "0" || meta["status"] == "finished":
		a.m.Store.UnmarkRoot(ctx, a.root)
	case ok:
		a.m.Store.MarkRoot(ctx, a.root, next)
	default:
		// Live but nothing due (paused, or join targets waiting on running
		// work elsewhere): look again after a lease period.
		a.m.Store.MarkRoot(ctx, a.root, time.Now().Add(a.m.RootLease))
	}
	a.m.Store.ReleaseRoot(ctx, a.root, a.m.Replica, a.token)
}
