package reactor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// ErrStuck means live processes remain but none will ever become due.
var ErrStuck = errors.New("session is stuck: live processes but nothing due")

// ErrStepLimit means Run stopped at Runner.MaxSteps with work left.
var ErrStepLimit = errors.New("step limit reached")

// machineConfig is what differs between the drivers of the session
// machine: a replica of `xgr run` (concurrent executions, leases, hand-back)
// and the serial driver of `xgr simulate` (one process at a time, the
// earliest due first, a virtual clock).
type machineConfig struct {
	// Serial: one process at a time, the earliest due first; no root
	// lease, no hand-back: the run ends when the session has no live
	// process (cmdDone).
	Serial bool
	// RootLease is renewed every third of it (0: never, the serial
	// driver); a replica hands the session back when nothing is due
	// within it.
	RootLease time.Duration
	// Poll is how soon a claim round looks again when the window is full.
	Poll time.Duration
	// ClaimLease, when set, lets a commit claim the children that may run
	// at once (joinstore.Commit.ClaimLease) and defers the end of a
	// session to the hand-back (Commit.DeferFinish).
	ClaimLease time.Duration
	// MaxSteps ends a serial run with ErrStepLimit once this many steps
	// ran (0: no bound).
	MaxSteps int
	// Worker names the committer.
	Worker string
	// Check is the store's payload check (size and shape): pure.
	Check func(what string, p []byte) error
	// CheckSize is its size check alone, for a stored payload a step
	// passes on unchanged (its shape was checked when it was stored); nil:
	// Check.
	CheckSize func(what string, p []byte) error
	// Executions: a step whose selected branch has an execution executes
	// it before its branch applies (execstep.go); off, the execution is
	// reported not performed.
	Executions bool
	// ExecPoll is how often an execution's outcome is polled.
	ExecPoll time.Duration
	// RecordCap bounds an execution record (bytes; 0: none): the step's
	// decision with its output, inputs and extracted values, each bounded
	// by the payload cap (joinstore.Store.MaxRecord).
	RecordCap int
	// Bundles: every committed step's log bundle goes with its commit
	// (cmdCommit.Bundle), stored once the commit succeeded.
	Bundles bool
}

// machine is the pure core of one session: Step(input, now) returns what to
// do as data (ready). It reads no clock and performs no IO; both drivers
// feed it what happened and carry out its commands. Every decision of the
// session's follow-up work lives here: what a commit leaves ready, which
// join steps, wake-ups, reaps and recoveries run and in which order, when
// to claim, sleep, renew and hand back, and the timeline.
type machine struct {
	cfg   machineConfig
	root  joinstore.Root
	mode  actorMode
	orch  *registry.Orchestration
	table joinstore.StepTable

	// inflight are the executions running; results their outcomes waiting
	// for their commit, in the order they completed.
	inflight map[int64]joinstore.Claim
	results  []result
	// ready are processes due now that are not claimed yet.
	ready []int64
	// todo is the store work queued before the next commit or claim round:
	// follow-ups of a transition go to its front, so a commit's joins,
	// reap and wake-ups all run before the next result is committed.
	todo []command
	// committing is the result whose commit is outstanding.
	committing *pendingCommit
	// retries counts transient failures per process (capped backoff).
	retries map[int64]int
	// execs are the executing processes this machine holds (also in
	// inflight).
	execs map[int64]*execState

	// killed: the session was killed (a command, a cap, a cancel); claim
	// rounds reap instead.
	killed bool
	// finished: a commit of this machine ended the session.
	finished bool
	// storeBusy: a store command is outstanding; renewing: a renewal is.
	storeBusy, renewing bool
	// needClaim asks for a claim round.
	needClaim bool
	// next is the earliest known due time of a waiting process (hasNext).
	next      time.Time
	hasNext   bool
	lastRenew time.Time
	// markedAt is where the hand-back marked the root index; remarked:
	// it marked it again, earlier (handBack).
	markedAt time.Time
	remarked bool
	// sleepUntil is when the latest (earliest-ending) sleep ends; sleeps
	// counts the sleeps still pending.
	sleepUntil time.Time
	sleeps     int
	sleeping   bool
	// executed counts the steps executed.
	executed int
	// reach caches the reachability a join target's record keeps
	// (JoinReach), by creating step and outcome.
	reach map[joinReachKey]map[string][]string
	// steps is the session's count of committed steps (its meta's steps):
	// read when the session opens, counted up by every commit of this
	// machine (commits are one at a time) and taken from a commit's
	// answer when it has it. A step's bundle says steps+1 (executed).
	steps int64
	seq   uint64
	out   ready
}

// pendingCommit is a commit in flight: the result and the payload its
// claimed children get.
type pendingCommit struct {
	r      result
	commit joinstore.Commit
	next   map[string]any
}

// ready is what one Step asks of the driver: commands to carry out, in
// order, and timeline lines (numbered).
type ready struct {
	cmds   []command
	events []Event
}

// newMachine returns a machine; orch is nil for a replica (cmdOpen loads
// it), set for the serial driver.
func newMachine(cfg machineConfig, root joinstore.Root, orch *registry.Orchestration, now time.Time) *machine {
	m := &machine{cfg: cfg, root: root, inflight: map[int64]joinstore.Claim{}, retries: map[int64]int{}, execs: map[int64]*execState{}, lastRenew: now,
		reach: map[joinReachKey]map[string][]string{}}
	if orch != nil {
		m.orch, m.table, m.mode, m.needClaim = orch, Table(orch), modeRunning, true
	}
	return m
}

func (m *machine) emit(now time.Time, typ EventType, pid, step, detail string) {
	m.seq++
	m.out.events = append(m.out.events, Event{Seq: m.seq, At: now, Type: typ, Pid: pid, Step: step, Detail: detail})
}

func (m *machine) do(c command) { m.out.cmds = append(m.out.cmds, c) }

// front queues store work before what is queued.
func (m *machine) front(cmds ...command) { m.todo = append(cmds, m.todo...) }

// Step applies one input at now and returns what to do.
func (m *machine) Step(in input, now time.Time) ready {
	m.out = ready{}
	m.apply(in, now)
	if m.mode != modeDone {
		m.decide(now)
	}
	return m.out
}

// Done reports whether the machine has ended.
func (m *machine) Done() bool { return m.mode == modeDone }

// Releasing reports whether the machine is handing its session back.
func (m *machine) Releasing() bool { return m.mode == modeReleasing }

func (m *machine) apply(in input, now time.Time) {
	if err := failure(in); err != nil && m.cfg.Serial {
		// The serial driver stops at the first store error.
		m.mode = modeDone
		m.do(cmdDone{Err: err})
		return
	}
	switch in := in.(type) {
	case inStart:
	case inCancel:
		m.mode = m.mode.cancel()
	case inPoke:
		m.needClaim = true
	case inTimer:
		m.sleeps--
		m.needClaim = true
		if m.sleeps <= 0 || !now.Before(m.sleepUntil) {
			m.sleeping, m.sleeps = false, 0
		}
	case inOpened:
		m.storeBusy = false
		if in.Err != nil && in.Stall != "" {
			m.stall(now, in)
			return
		}
		m.mode = m.mode.opened(in.Err == nil)
		if in.Err != nil {
			return
		}
		if in.Opening.Meta.Stalled != "" {
			m.do(cmdUnstall{})
		}
		m.orch, m.table = in.Orch, Table(in.Orch)
		m.next, m.hasNext = in.Opening.Next, in.Opening.NextOK
		m.steps = in.Opening.Meta.Steps
		m.resume(in.Opening)
		m.run(now, in.Claims, nil)
	case inRenewed:
		m.renewing = false
		if errors.Is(in.Err, joinstore.ErrRootHeld) {
			// Another replica took the session; its fencing tokens void
			// our in-flight work. Stop without releasing.
			m.mode = modeDone
			return
		}
		if in.Read {
			m.resume(in.Opening)
		}
	case inRecovered:
		m.storeBusy = false
		for it, r := range in.Results {
			pid := m.pid(it)
			switch r {
			case joinstore.Abandoned:
				m.emit(now, EvAborted, pid, "", "abandoned: recovered from an expired lease too often")
			case joinstore.Released:
				m.emit(now, EvRecovered, pid, "", "its replica stopped; due again")
			}
		}
		m.execResumed(now, in.Resumed)
		m.needClaim = true
	case inReaped:
		m.storeBusy = false
		if in.Err != nil {
			m.next, m.hasNext = now.Add(m.cfg.Poll), true
			return
		}
		m.reaped(now, in.Res)
	case inClaimed:
		m.storeBusy = false
		m.claimed(now, in)
	case inExecuted:
		m.executed++
		m.results = append(m.results, in.R)
	case inCommitted:
		m.storeBusy = false
		pc := m.committing
		m.committing = nil
		m.committed(now, pc, in)
	case inLeaseReleased:
		m.storeBusy = false
		m.needClaim = true
	case inJoined:
		m.storeBusy = false
		m.joined(now, in)
	case inWoke:
		m.storeBusy = false
		for _, e := range in.Outcomes {
			m.emit(e.At, EvWakeUp, e.Pid, e.Step, e.Detail)
		}
	case inInspected:
		m.storeBusy = false
		m.inspected(now, in)
	case inStalled:
		// Recorded or not (a lost lease), the root index is marked at the
		// retry time and the lease given back.
		m.do(cmdMarkRoot{At: m.markedAt})
	case inUnstalled:
	case inMarked, inDueRead, inUnmarked, inMetaRead, inReleased:
		m.handBack(in)
	case inExecBegun:
		m.storeBusy = false
		m.execBegun(now, in)
	case inSent:
		m.execSent(now, in)
	case inPolled:
		m.execPolled(now, in)
	case inFlipped:
		m.execFlipped(now, in)
	}
}

func (m *machine) pid(iter int64) string { return m.root.Pid(iter) }

// failure is the store error an input reports (nil for none, and for a
// lost lease, which is an outcome).
func failure(in input) error {
	var err error
	switch in := in.(type) {
	case inRecovered:
		err = in.Err
	case inReaped:
		err = in.Err
	case inClaimed:
		err = in.Err
	case inCommitted:
		err = in.Err
	case inLeaseReleased:
		err = in.Err
	case inJoined:
		if joinSkipped(in.Err) {
			return nil
		}
		err = in.Err
	case inWoke:
		err = in.Err
	case inInspected:
		err = in.Err
	case inExecBegun:
		err = in.Err
	}
	if errors.Is(err, joinstore.ErrLeaseLost) || errors.Is(err, joinstore.ErrSessionKilled) {
		// Outcomes the machine acts on: another holder owns the
		// process; the session was killed (a claim's answer).
		return nil
	}
	return err
}

// joinSkipped reports whether a join step's error says it had nothing to
// do: its target was never created (the spawn gate dropped it), or
// another holder has the target's join lock and applies every pending
// delivery before it lets go.
func joinSkipped(err error) bool {
	return errors.Is(err, joinstore.ErrNotFound) || errors.Is(err, joinstore.ErrJoinBusy)
}

// maxTransientRetries bounds how often one process is run again after a
// transient failure on one replica (the backoff doubles from 1 s to a
// minute: about 6 minutes in all) before it aborts with the failure.
const maxTransientRetries = 10

// isTransient reports whether a step's error says it could not be decided
// now (a node or API that did not answer) rather than that it failed: such
// a step runs again after a backoff instead of aborting.
func isTransient(err error) bool {
	var t interface{ Transient() bool }
	return errors.As(err, &t) && t.Transient()
}

// resume acts on what a read of the session found: processes a dead
// replica left running go back to the due set once their leases expired, a
// killed session has its waiting processes reaped, queued wake-ups (a crash
// between a commit and their performing) are performed and pending join
// deliveries applied; what is due now is claimed.
func (m *machine) resume(o joinstore.Opening) {
	if !o.Meta.KilledAt.IsZero() {
		m.killed = true
	}
	m.ready = append(m.ready, o.Due...)
	m.needClaim = m.needClaim || len(o.Due) > 0
	if len(o.Expired) > 0 {
		m.todo = append(m.todo, cmdRecover{})
	}
	if m.killed {
		m.todo = append(m.todo, cmdReap{})
	}
	if len(o.Wakes) > 0 {
		m.todo = append(m.todo, cmdWakes{Wakes: o.Wakes})
	}
	for _, t := range o.PendingJoins {
		m.todo = append(m.todo, cmdJoinStep{Target: t})
	}
}

// run executes claimed processes, one command each; input is their payload
// when known decoded (nil: decoded from the claim).
func (m *machine) run(now time.Time, claims []joinstore.Claim, input map[string]any) {
	for _, cl := range claims {
		m.inflight[cl.Iter] = cl
		m.emit(now, EvClaimed, cl.Pid, cl.ResumeStep, "")
		m.do(cmdExecute{Claim: cl, Input: input})
	}
}

// claimed acts on a claim round.
func (m *machine) claimed(now time.Time, in inClaimed) {
	if errors.Is(in.Err, joinstore.ErrSessionKilled) {
		m.killed = true
		m.front(cmdReap{})
		return
	}
	if in.Err != nil {
		return
	}
	if in.ReadDue {
		m.next, m.hasNext = in.Next, in.NextOK
	}
	m.run(now, in.Claims, nil)
	if !m.cfg.Serial && len(in.Claims) < in.Asked {
		// The window is full (or a ready process is not due yet): look
		// again after a poll interval.
		m.next, m.hasNext = now.Add(m.cfg.Poll), true
	}
	if m.cfg.Serial && in.Asked > 0 {
		m.needClaim = true // the next earliest, once this one is done
	}
}

// reaped acts on a batch of a killed session's aborted processes: their
// failure deliveries run first; while some are left it reaps again at
// once, then polls until the running ones commit.
func (m *machine) reaped(now time.Time, res joinstore.KillResult) {
	var follow []command
	for it, st := range res.Results {
		m.emit(now, EvKilled, m.pid(it), "", st)
	}
	for _, f := range res.FollowUps {
		if !f.Kill {
			follow = append(follow, cmdJoinStep{Target: f.Target})
		}
	}
	switch {
	case res.Live <= 0:
		m.hasNext = false
	case len(res.Results) > 0:
		follow = append(follow, cmdReap{})
	case !m.cfg.Serial:
		m.next, m.hasNext = now.Add(m.cfg.Poll), true
	}
	m.front(follow...)
}

// commit turns the oldest execution result into its commit.
func (m *machine) commit(now time.Time) {
	r := m.results[0]
	m.results = m.results[1:]
	c := r.claim
	delete(m.inflight, c.Iter)
	if r.err == nil && r.done == nil && r.res.Execution != nil {
		if m.cfg.Executions {
			if m.beginExec(now, r) {
				return
			}
			m.commit(now) // the step aborts (its record was refused)
			return
		}
		if !slices.ContainsFunc(r.res.NotPerformed, func(s string) bool { return strings.HasPrefix(s, "execution") }) {
			np := "execution to " + r.res.Execution.To.Hex()
			if r.res.sealed() {
				np = "execution" // its target may come from the payload
			}
			r.res.NotPerformed = append([]string{np}, r.res.NotPerformed...)
		}
	}
	if r.err != nil && r.done == nil && isTransient(r.err) && m.retries[c.Iter] >= maxTransientRetries {
		r.err = fmt.Errorf("gave up after %d attempts: %w", maxTransientRetries+1, r.err)
	} else if r.err != nil && r.done == nil && isTransient(r.err) {
		// The step could not be decided (the node or an API did not
		// answer): nothing happened; it runs again after a backoff.
		n := m.retries[c.Iter]
		m.retries[c.Iter] = n + 1
		wait := min(time.Second<<min(n, 6), time.Minute)
		m.emit(now, EvRetry, c.Pid, c.ResumeStep, fmt.Sprintf("in %s: %s", wait, publicErr(r.err, r.res.sealed())))
		m.storeBusy = true
		m.do(cmdReleaseLease{Claim: c, RetryAt: now.Add(wait)})
		return
	}
	delete(m.retries, c.Iter)
	step := m.orch.Step(c.ResumeStep)
	commit, detail, next := commitFor(c, step, payloadChecks{m.cfg.Check, m.cfg.CheckSize}, r, now, m.cfg.Worker)
	for i := range commit.Children {
		lim := m.table[commit.Children[i].ResumeStep]
		commit.Children[i].Reserve, commit.Children[i].Bypass = lim.Reserve, lim.Bypass
	}
	if m.cfg.ClaimLease > 0 {
		commit.ClaimLease, commit.DeferFinish = m.cfg.ClaimLease, true
	}
	if step != nil {
		withJoinReach(m.orch, step, r.res.Valid, commit.Children, m.reach)
	}
	// The delivery, the decision of the group's join and the first decision
	// of the joins the step creates go with the commit: a join-closing step
	// in one round trip.
	commit.DecideJoin = true
	if r.done != nil {
		commit.ExecOutcome = r.done.outcome
	}
	m.emit(now, EvExecuted, c.Pid, c.ResumeStep, detail)
	m.committing = &pendingCommit{r: r, commit: commit, next: next}
	m.storeBusy = true
	cmd := cmdCommit{Claim: c, Commit: commit}
	if m.cfg.Bundles {
		cmd.Bundle = bundleFor(m.root, step, r, commit, now)
		cmd.Bundle.Bundle.Executed = m.steps + 1
	}
	m.do(cmd)
}

// committed acts on a commit: the children it claimed run at once; its
// own delivery and the joins of the targets it created run next, then the
// reap a kill asks for and the wake-ups it queued, all before the next
// result is committed.
func (m *machine) committed(now time.Time, pc *pendingCommit, in inCommitted) {
	c := pc.r.claim
	if in.Err == nil {
		// Every commit counts one step in the session's meta (a killed
		// one too); a commit that stored a bundle read the count back.
		m.steps++
		if in.Res.Steps > 0 {
			m.steps = in.Res.Steps
		}
	}
	if pc.r.done != nil && m.execCommitted(now, pc, in) {
		// The outcome is final; the commit is tried again after a poll.
		return
	}
	if errors.Is(in.Err, joinstore.ErrLeaseLost) {
		// Another holder owns the process now; this result is void.
		m.emit(now, EvIgnored, c.Pid, c.ResumeStep, "lease lost; result discarded")
		return
	}
	if in.Err != nil {
		m.needClaim = true
		m.front(cmdReleaseLease{Claim: c, RetryAt: now})
		return
	}
	cr := in.Res
	switch {
	case cr.Cancelled:
		m.killed = true
		m.emit(now, EvCancelled, c.Pid, c.ResumeStep, pc.commit.CancelSession)
	case cr.Capped != "":
		m.killed = true
		m.emit(now, EvCapped, c.Pid, c.ResumeStep, cr.Capped)
	case cr.Killed:
		m.emit(now, EvKilled, c.Pid, c.ResumeStep, "killed while running")
	}
	m.finished = m.finished || (cr.Live <= 0 && len(cr.Wakes) == 0)
	if cr.Killed {
		m.needClaim = true
	}
	claimed := make(map[int64]bool, len(cr.Claims))
	for _, cl := range cr.Claims {
		claimed[cl.Iter] = true
	}
	var follow []command
	decidedHere := make(map[int64]bool, len(cr.Joins))
	for _, j := range cr.Joins {
		decidedHere[j.Target] = true
	}
	if !cr.Killed {
		for _, ch := range pc.commit.Children {
			m.emit(now, EvSpawned, c.Root.Pid(ch.Iter), ch.ResumeStep, "group "+ch.JoinGroupID)
			switch {
			case ch.Join != nil && decidedHere[ch.Iter]:
				// its first decision was the commit's
			case ch.Join != nil:
				follow = append(follow, cmdJoinStep{Target: ch.Iter})
			case claimed[ch.Iter]:
			case !ch.NextWakeAt.After(now):
				m.ready = append(m.ready, ch.Iter)
			case !m.hasNext || ch.NextWakeAt.Before(m.next):
				m.next, m.hasNext = ch.NextWakeAt, true
			}
		}
	}
	// The joins the commit decided, then the children it claimed, which
	// run at once (after their spawned lines and the decision's).
	decided := false
	for _, j := range cr.Joins {
		decided = decided || j.Target == c.GroupTarget
		follow = append(follow, m.joinLines(now, j.Target, appliedOf(j.Applied), joinstore.JoinResult{Verdicts: []string{j.Verdict}, Killed: j.Killed, FollowUps: j.FollowUps})...)
	}
	m.run(now, cr.Claims, pc.next)
	if cr.Gated > 0 {
		m.emit(now, EvGated, c.Pid, c.ResumeStep, fmt.Sprintf("%d spawns dropped", cr.Gated))
	}
	if cr.DeliveredTo != 0 {
		follow = append(follow, cmdJoinStep{Target: cr.DeliveredTo, Lock: cr.Lock})
	} else if c.GroupTarget != 0 && !cr.Killed && !decided {
		m.emit(now, EvIgnored, c.Root.Pid(c.GroupTarget), c.ResumeStep, "join already decided")
	}
	if m.killed {
		// The commit's own delivery and the decisions it causes come
		// first, then the kill reaps the waiting processes.
		follow = append(follow, cmdReap{})
	}
	if len(cr.Wakes) > 0 {
		follow = append(follow, cmdWakes{Wakes: cr.Wakes})
	}
	m.front(follow...)
	if m.cfg.Serial {
		m.needClaim = true
	}
}

// joined acts on a join step: its verdicts, the processes a kill policy
// aborted and the follow-ups (targets it delivered to) that run next.
func (m *machine) joined(now time.Time, in inJoined) {
	switch {
	case joinSkipped(in.Err):
		in.Res = joinstore.JoinResult{}
	case in.Err != nil:
		return
	}
	m.front(m.joinLines(now, in.Target, in.Applied, in.Res)...)
}

// joinLines records what a join step of target did, in a join step of its
// own or in the commit that delivered to it: the deliveries applied, its
// verdicts, the processes a kill policy aborted; it returns the follow-ups
// (targets it failed into, kill-policy targets aborted) that run next.
func (m *machine) joinLines(now time.Time, target int64, applied []Applied, res joinstore.JoinResult) []command {
	pid := m.pid(target)
	for _, d := range applied {
		typ := EvIgnored
		if d.Result == Delivered || d.Result == Failed {
			typ = EvDelivered
		}
		m.emit(now, typ, pid, d.From, d.Result.String()+" from "+d.Pid)
	}
	for _, v := range res.Verdicts {
		switch v {
		case joinstore.VerdictSatisfied:
			m.emit(now, EvJoinClosed, pid, "", "")
			m.emit(now, EvPromoted, pid, "", "")
			m.ready = append(m.ready, target) // a claim skips it while its nextWakeAt is later
			m.needClaim = true
		case joinstore.VerdictUnfulfillable:
			m.emit(now, EvJoinAborted, pid, "", "")
		}
	}
	for _, it := range res.Killed {
		m.emit(now, EvKilled, m.pid(it), "", "join "+pid+" closed with kill")
	}
	follow := make([]command, 0, len(res.FollowUps))
	for _, f := range res.FollowUps {
		follow = append(follow, cmdJoinStep{Target: f.Target, Kill: f.Kill})
	}
	return follow
}

// appliedOf reads the deliveries a commit's join applied (their results by
// name, DeliveryResult.String).
func appliedOf(list []joinstore.AppliedDelivery) []Applied {
	out := make([]Applied, len(list))
	for i, a := range list {
		r := IgnoredNotExpected
		for n, name := range deliveryNames {
			if name == a.Result {
				r = DeliveryResult(n)
			}
		}
		out[i] = Applied{Pid: a.Pid, From: a.From, Result: r}
	}
	return out
}

// inspected acts on the reads before a hand-back (a replica) or at the end
// of a serial run.
func (m *machine) inspected(now time.Time, in inInspected) {
	if m.cfg.Serial {
		switch {
		case in.Err != nil:
			m.mode = modeDone
			m.do(cmdDone{Err: in.Err})
		case in.Live <= 0:
			m.mode = modeDone
			m.do(cmdDone{})
		case in.NextOK:
			m.next, m.hasNext = in.Next, true
			m.sleeping, m.sleepUntil, m.sleeps = true, in.Next, 1
			m.do(cmdSleep{Until: in.Next})
		default:
			m.mode = modeDone
			m.do(cmdDone{Err: fmt.Errorf("%w (%d live)", ErrStuck, in.Live)})
		}
		return
	}
	m.storeBusy = true
	switch {
	case in.Err != nil:
		// Unknown: the root index keeps its mark; the lease goes.
		m.do(cmdReleaseRoot{})
	case in.PendingWake:
		// Wake-ups still to perform (their targets failed to answer): look
		// again after a lease period.
		m.mark(now.Add(m.cfg.RootLease))
	case in.Live <= 0 || in.Finished:
		m.do(cmdUnmarkRoot{})
	case in.NextOK:
		m.mark(in.Next)
	default:
		// Live but nothing due (paused, or targets waiting on work that is
		// not due yet): look again after a lease period.
		m.mark(now.Add(m.cfg.RootLease))
	}
}

// Stall kinds: why a replica cannot run a session at all (inOpened.Stall,
// Lifecycle.Stalled).
const (
	// StallUnknownOrchestration: the replica serves no orchestration of
	// the session's registry and id.
	StallUnknownOrchestration = "unknown-orchestration"
	// StallHashMismatch: the orchestration it serves under that id is not
	// the text the session pinned.
	StallHashMismatch = "hash-mismatch"
)

// Stall backoff: a session no replica could run is tried again a root
// lease later, doubled per stall in a row, at most stallBackoffMax.
const stallBackoffMax = 10 * time.Minute

func stallBackoff(lease time.Duration, stalls int64) time.Duration {
	d := max(lease, time.Second)
	for i := int64(0); i < stalls && d < stallBackoffMax; i++ {
		d *= 2
	}
	return min(d, stallBackoffMax)
}

// stall hands back a session this replica cannot run (in.Stall): what the
// adoption claimed goes back due at the retry time, the stall is recorded
// on the session (why, when, by whom, how many in a row), the root index
// is marked at the retry time and the root lease released. Without it the
// session would be adopted again as soon as its lease expired, by this
// replica or one like it, forever and without a word.
func (m *machine) stall(now time.Time, in inOpened) {
	until := now.Add(stallBackoff(m.cfg.RootLease, in.Opening.Meta.Stalls))
	m.mode, m.storeBusy, m.remarked, m.markedAt = modeReleasing, true, true, until
	m.do(cmdStall{Kind: in.Stall, Reason: in.Err.Error(), Claims: in.Claims, Until: until})
}

// mark marks the root index where the hand-back found the session's next
// need of a replica.
func (m *machine) mark(at time.Time) {
	m.markedAt = at
	m.do(cmdMarkRoot{At: at})
}

// handBack goes on with the hand-back after each of its store commands,
// until the root lease is given back (inReleased ends the machine).
//
// A mark is followed by a second read of the due set: a wake between the
// reads before the mark and the mark made work due sooner and marked the
// root for it, which the mark just overwrote; wakes make work due before
// they mark, so the second read sees it, and the root is marked again at
// that earlier time (once). A session taken out of the root index is read
// again and reported finished when it is (a join step, the dispatch gate
// or a kill ended it, not this machine's last commit). A read or an unmark
// that fails skips to the release: the root index keeps what it has.
func (m *machine) handBack(in input) {
	switch in := in.(type) {
	case inMarked:
		if m.remarked {
			m.do(cmdReleaseRoot{})
			return
		}
		m.do(cmdReadDue{})
	case inDueRead:
		if in.Err == nil && in.NextOK && in.Next.Before(m.markedAt) {
			m.remarked = true
			m.mark(in.Next)
			return
		}
		m.do(cmdReleaseRoot{})
	case inUnmarked:
		if in.Err != nil {
			m.do(cmdReleaseRoot{})
			return
		}
		m.do(cmdReadMeta{})
	case inMetaRead:
		var rel cmdReleaseRoot
		if in.Err == nil && in.Meta.Status == joinstore.SessionFinished {
			meta := in.Meta
			rel.Finished = &meta
		}
		m.do(rel)
	case inReleased:
		m.mode = modeDone
	}
}

// decide issues the next commands.
func (m *machine) decide(now time.Time) {
	m.driveExecs(now)
	if m.cfg.RootLease > 0 && !m.renewing && m.mode.renews() && now.Sub(m.lastRenew) > m.cfg.RootLease/3 {
		m.renewing, m.lastRenew = true, now
		inflight := make([]joinstore.Claim, 0, len(m.inflight))
		for _, c := range m.inflight {
			inflight = append(inflight, c)
		}
		m.do(cmdRenew{Inflight: inflight})
	}
	if m.storeBusy || m.mode == modeReleasing {
		return
	}
	switch {
	case m.mode == modeOpening:
		m.storeBusy = true
		m.do(cmdOpen{})
	case len(m.todo) > 0:
		c := m.todo[0]
		m.todo = m.todo[1:]
		m.storeBusy = true
		m.do(c)
	case m.beginDue(now) != nil:
		m.issueBegin(m.beginDue(now))
	case len(m.results) > 0:
		m.commit(now)
	case m.mode == modeOpeningCancelled:
		// Cancelled before the session was read: nothing was claimed.
		m.release(now)
	case m.mode == modeDraining && len(m.inflight) == 0:
		m.release(now)
	case m.mode == modeDraining:
		// Wait for the executions in flight.
	case m.cfg.Serial:
		m.decideSerial()
	case m.needClaim || len(m.ready) > 0:
		m.claim(now)
	case len(m.inflight) == 0 && (!m.hasNext || m.next.Sub(now) > m.cfg.RootLease):
		// Nothing runs and nothing is due soon: hand the session back; the
		// root index brings it back when it is due.
		m.release(now)
	default:
		m.sleep(now)
	}
}

// decideSerial: one process at a time, the earliest due first; when none
// is due, the run ends, sleeps until the next due time or is stuck.
func (m *machine) decideSerial() {
	switch {
	case len(m.inflight) > 0:
		// Executions wait for their next poll: sleep until it.
		if at, ok := m.execWake(); ok && len(m.inflight) == len(m.execs) && !m.execBusy() && (!m.sleeping || at.Before(m.sleepUntil)) {
			m.sleeping, m.sleepUntil = true, at
			m.sleeps++
			m.do(cmdSleep{Until: at})
		}
	case m.needClaim && m.cfg.MaxSteps > 0 && m.executed >= m.cfg.MaxSteps:
		m.mode = modeDone
		m.do(cmdDone{Err: fmt.Errorf("%w after %d executed steps", ErrStepLimit, m.executed)})
	case m.needClaim && m.killed:
		m.needClaim = false
		m.storeBusy = true
		m.do(cmdReap{})
	case m.needClaim:
		m.needClaim, m.ready = false, nil
		m.storeBusy = true
		m.do(cmdClaim{Earliest: true})
	case !m.sleeping:
		m.storeBusy = true
		m.do(cmdInspect{})
	}
}

// claim issues a claim round: the known-ready processes, else what the due
// set holds; a killed session is reaped instead.
func (m *machine) claim(now time.Time) {
	ready := m.ready
	m.ready, m.needClaim = nil, false
	m.storeBusy = true
	if m.killed {
		m.do(cmdReap{})
		return
	}
	busy := make(map[int64]bool, len(m.inflight))
	for it := range m.inflight {
		busy[it] = true
	}
	m.do(cmdClaim{Iters: ready, Busy: busy})
}

// sleep waits until the next due time (or a third of the root lease, to
// renew); a due time earlier than the pending sleep's end gets a shorter
// sleep of its own.
func (m *machine) sleep(now time.Time) {
	wait := m.cfg.RootLease / 3
	if m.hasNext {
		wait = min(wait, max(m.next.Sub(now), time.Millisecond))
	}
	if at, ok := m.execWake(); ok {
		wait = min(wait, max(at.Sub(now), time.Millisecond))
	}
	until := now.Add(wait)
	if m.sleeping && !until.Before(m.sleepUntil) {
		return
	}
	m.sleeping, m.sleepUntil = true, until
	m.sleeps++
	m.do(cmdSleep{Until: until})
}

// release hands the session back: at once when this machine's last commit
// ended it, else after reading where the root index must mark it.
func (m *machine) release(time.Time) {
	m.mode, m.storeBusy = modeReleasing, true
	if m.finished && len(m.ready) == 0 {
		m.do(cmdReleaseFinished{})
		return
	}
	m.do(cmdInspect{})
}
