package reactor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/internal/failpoint"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// sessionIO carries out the session machine's commands for one session
// against the store and the executor, for both drivers, and reports what
// happened as the machine's inputs. It decides nothing: which command runs
// when, and what its outcome means, is the machine's.
type sessionIO struct {
	store  *joinstore.Store
	source Source // nil when the orchestration is given (the serial driver)
	exec   Executor
	root   joinstore.Root
	// worker names this holder in leases; procLease is the lease of a
	// claimed process, rootLease the root lease (replicas).
	worker               string
	procLease, rootLease time.Duration
	token                int64
	// adopted is what the adoption read (joinstore.Adopt); cmdOpen takes
	// it instead of reading the session again.
	adopted *joinstore.Adoption
	// life receives lease losses and finished sessions (replicas only).
	life Lifecycle
	// orch and table: the session's orchestration (set at cmdOpen, or
	// given).
	orch  *registry.Orchestration
	table joinstore.StepTable
	// clock is the driver's clock: time.Now for replicas, a virtual one
	// in simulation.
	clock func() time.Time
	// poke, when set, tells a local actor of a woken session to look.
	poke func(joinstore.Root)
	log  *slog.Logger
	// act performs executions (nil: off); flip renders the onInvalid
	// branch after a revert.
	act  execution.Actuator
	flip Flipper
	// bundles stores committed steps' log bundles (nil: off).
	bundles BundleWriter
	// scope is the session's part of an execution's scope, read once.
	scope   *execution.Scope
	scopeMu sync.Mutex
}

// carry carries out one command (not cmdSleep or cmdDone, which are the
// driver's own) and returns the machine's input for its outcome.
func (s *sessionIO) carry(ctx context.Context, c command) input {
	switch c.(type) {
	case cmdMarkRoot, cmdReadDue, cmdUnmarkRoot, cmdReadMeta, cmdReleaseRoot, cmdReleaseFinished, cmdStall:
		// The hand-back is carried out also when the driver was told to
		// stop (a replica's drain ends with it).
		ctx = context.WithoutCancel(ctx)
	}
	switch c := c.(type) {
	case cmdOpen:
		return s.open(ctx)
	case cmdBeginExec:
		res, err := s.store.BeginExec(ctx, c.Claim, s.clock(), c.Key, c.Record, c.Flip, c.Sealed)
		return inExecBegun{Iter: c.Claim.Iter, Res: res, Err: err}
	case cmdSend:
		// Chaos: the step's record is on the process (begin_exec), nothing
		// is sent yet.
		failpoint.Hit("reactor.exec-begun")
		return s.send(ctx, c)
	case cmdPoll:
		o, ok, err := s.act.Outcome(ctx, c.Key)
		if err == nil && ok {
			if err = s.meterExecution(ctx, c.Key, o); err != nil {
				return inPolled{Iter: c.Claim.Iter, Err: err}
			}
			s.logFailedExecution(c, o)
		}
		return inPolled{Iter: c.Claim.Iter, Outcome: o, OK: ok, Err: err}
	case cmdFlip:
		return s.flipStep(ctx, c)
	case cmdRecover:
		if s.act != nil {
			res, resumed, err := s.store.RecoverResume(ctx, s.root, s.clock(), joinstore.Resume{Lease: s.procLease, Worker: s.worker, Steps: s.table})
			s.logRecovered(res)
			return inRecovered{Results: res, Resumed: resumed, Err: err}
		}
		res, err := s.store.Recover(ctx, s.root, s.clock())
		s.logRecovered(res)
		return inRecovered{Results: res, Err: err}
	case cmdReap:
		res, err := Reap(ctx, s.store, s.root, s.clock())
		return inReaped{Res: res, Err: err}
	case cmdClaim:
		return s.claim(ctx, c)
	case cmdExecute:
		return inExecuted{R: s.execute(ctx, c.Claim, c.Input)}
	case cmdCommit:
		if c.Commit.Status == "aborted" {
			s.log.Warn("step aborted", "session", s.root.String(), "pid", c.Claim.Pid, "step", c.Claim.ResumeStep, "reason", c.Commit.AbortReason)
		}
		if c.Commit.ExecOutcome != nil {
			// Chaos: the execution is final (mined), its step not committed.
			failpoint.Hit("reactor.exec-final")
		}
		commit := c.Commit
		var prep *evidence.Prepared
		if c.Bundle != nil && s.bundles != nil {
			var err error
			if prep, err = s.prepareBundle(ctx, c.Bundle, c.Claim.Token); err != nil {
				return inCommitted{Err: err}
			}
			if prep != nil {
				commit.Bundle = &joinstore.BundleWrite{Key: prep.Key, TTL: prep.TTL, Fields: prep.Fields, Before: prep.Before}
			}
		}
		res, err := s.store.Commit(ctx, c.Claim, s.clock(), commit)
		// Chaos: the commit and its bundle are in Redis (or neither is),
		// the machine not told.
		failpoint.Hit("reactor.committed")
		if prep != nil {
			s.bundleSettled(ctx, prep, res, err)
		}
		switch {
		case res.Cancelled:
			s.log.Warn("session cancelled by its step", "session", s.root.String(), "pid", c.Claim.Pid, "reason", c.Commit.CancelSession)
		case res.Capped != "":
			s.log.Warn("session killed by a cap", "session", s.root.String(), "pid", c.Claim.Pid, "reason", res.Capped)
		}
		return inCommitted{Res: res, Err: err}
	case cmdReleaseLease:
		_, err := s.store.Release(ctx, c.Claim, s.clock(), c.RetryAt)
		return inLeaseReleased{Err: err}
	case cmdJoinStep:
		return s.joinStep(ctx, c)
	case cmdWakes:
		var lines []Event
		err := performWakes(ctx, s.store, s.root, c.Wakes, s.clock, func(e Event) { lines = append(lines, e) }, s.poke)
		return inWoke{Outcomes: lines, Err: err}
	case cmdRenew:
		return s.renew(ctx, c.Inflight)
	case cmdInspect:
		return s.inspect(ctx)
	case cmdMarkRoot:
		return inMarked{Err: s.store.MarkRoot(ctx, s.root, c.At)}
	case cmdReadDue:
		next, ok, err := s.store.NextDue(ctx, s.root)
		return inDueRead{Next: next, NextOK: ok, Err: err}
	case cmdUnmarkRoot:
		return inUnmarked{Err: s.store.UnmarkRoot(ctx, s.root)}
	case cmdReadMeta:
		meta, err := s.store.SessionMeta(ctx, s.root)
		return inMetaRead{Meta: meta, Err: err}
	case cmdReleaseRoot:
		if c.Finished != nil {
			s.finished(*c.Finished)
		}
		s.store.ReleaseRoot(ctx, s.root, s.worker, s.token)
		return inReleased{}
	case cmdStall:
		return s.stall(ctx, c)
	case cmdUnstall:
		return inUnstalled{Err: s.store.Unstall(ctx, s.root, s.worker, s.token)}
	case cmdReleaseFinished:
		meta, err := s.store.ReleaseFinished(ctx, s.root, s.worker, s.token, s.clock())
		if err != nil {
			s.log.Warn("releasing a finished session failed", "session", s.root.String(), "err", err)
			return inReleased{}
		}
		s.finished(meta)
		return inReleased{}
	}
	panic(fmt.Sprintf("reactor: command %T is the driver's", c))
}

// open takes what the adoption read (or reads the session in one round
// trip, joinstore.Open) and loads the orchestration.
func (s *sessionIO) open(ctx context.Context) input {
	now := s.clock()
	var in inOpened
	if a := s.adopted; a != nil {
		in.Opening, in.Claims, s.adopted = a.Opening, a.Claims, nil
	} else {
		var err error
		if in.Opening, err = s.store.Open(ctx, s.root, now, now.Add(s.rootLease)); err != nil {
			s.log.Error("cannot run session", "session", s.root.String(), "err", err)
			in.Err = err
			return in
		}
	}
	meta := in.Opening.Meta
	var err error
	if s.orch, err = s.source.Orchestration(ctx, meta.XRC729, meta.OstcID, common.HexToHash(meta.OstcHash)); err != nil {
		in.Err = err
		switch {
		case errors.Is(err, ErrUnknownOrchestration):
			in.Stall = StallUnknownOrchestration
		case errors.Is(err, ErrHashMismatch):
			in.Stall = StallHashMismatch
		default:
			// A claimed root process comes back when its lease expires.
			s.log.Error("cannot run session", "session", s.root.String(), "err", err)
			in.Claims = nil
		}
		return in
	}
	s.table, in.Orch = Table(s.orch), s.orch
	return in
}

// claim claims the given processes, or reads the due set: the earliest due
// process only (Earliest), else what is due up to the window.
func (s *sessionIO) claim(ctx context.Context, c cmdClaim) input {
	now := s.clock()
	in := inClaimed{}
	iters := c.Iters
	switch {
	case c.Earliest:
		due, err := s.store.DueIters(ctx, s.root, now, 64)
		if err != nil || len(due) == 0 {
			in.Err = err
			return in
		}
		iters = due[:1]
	case iters == nil:
		var err error
		iters, in.Next, in.NextOK, err = s.store.Due(ctx, s.root, now, 64)
		in.ReadDue = true
		if err != nil || len(iters) == 0 {
			in.Err = err
			return in
		}
	}
	fresh := iters[:0:0]
	for _, it := range iters {
		if !c.Busy[it] {
			fresh = append(fresh, it)
		}
	}
	in.Asked = len(fresh)
	in.Claims, in.Err = s.store.Claim(ctx, s.root, now, s.procLease, s.worker, s.table, fresh)
	return in
}

// execute runs one claimed process's step. input is the process's payload
// when the caller has it decoded already (a child claimed by its parent's
// commit gets the parent's next payload), else nil: it is decoded from the
// claim.
func (s *sessionIO) execute(ctx context.Context, c joinstore.Claim, input map[string]any) result {
	r := result{claim: c, inputRaw: c.ResumePlain}
	step := s.orch.Step(c.ResumeStep)
	if step == nil {
		r.err = fmt.Errorf("%s runs step %q, which orchestration %q does not have", c.Pid, c.ResumeStep, s.orch.ID)
		return r
	}
	if input == nil {
		var err error
		if input, err = UnmarshalPayload(c.ResumePlain); err != nil {
			r.err = fmt.Errorf("%s: resumePlain: %w", c.Pid, err)
			return r
		}
	}
	r.input = input
	r.res, r.err = s.exec.Execute(ctx, Execution{Owner: s.root.Owner, Session: s.root.RootPid, Pid: c.Pid, Step: step, Payload: r.input, Orchestration: s.orch})
	return r
}

// joinStep runs one join step with the core's decision: DecideJoin, or
// KillGroup for a kill-policy cascade.
func (s *sessionIO) joinStep(ctx context.Context, c cmdJoinStep) input {
	in := inJoined{Target: c.Target}
	decide := func(v joinstore.JoinView) (joinstore.JoinApply, error) {
		if c.Kill {
			return KillGroup(v)
		}
		ap, o, err := DecideJoin(v, s.orch.CanReach)
		in.Applied = append(in.Applied, o.Deliveries...)
		return ap, err
	}
	if c.Lock != nil {
		in.Res, in.Err = s.store.JoinStepLocked(ctx, c.Lock, s.clock(), s.procLease, decide)
	} else {
		in.Res, in.Err = s.store.JoinStep(ctx, s.root, c.Target, s.clock(), s.procLease, decide)
	}
	return in
}

// renew extends the root lease and the leases of the executions in flight,
// then reads the session as Open does: processes a dead replica left
// running, deliveries pushed by others (a kill), wake-ups left queued.
func (s *sessionIO) renew(ctx context.Context, inflight []joinstore.Claim) input {
	if _, err := s.store.AcquireRoot(ctx, s.root, s.worker, s.rootLease); err != nil && !errors.Is(err, joinstore.ErrFinished) {
		if !errors.Is(err, joinstore.ErrRootHeld) {
			s.log.Warn("renewal failed", "session", s.root.String(), "err", err)
		} else {
			s.log.Warn("lost the root lease", "session", s.root.String(), "err", err)
			if s.life.LeaseLost != nil {
				s.life.LeaseLost(s.root)
			}
		}
		return inRenewed{Err: err}
	}
	for _, c := range inflight {
		switch _, err := s.store.Renew(ctx, c, s.clock(), s.procLease); {
		case errors.Is(err, joinstore.ErrLeaseLost):
			// Usually its own commit came first (the renewal read the
			// in-flight list before it); a real loss shows at the commit.
			s.log.Debug("lease not renewed: no longer held", "pid", c.Pid, "err", err)
		case err != nil:
			s.log.Warn("lease renewal failed", "pid", c.Pid, "err", err)
		}
	}
	now := s.clock()
	o, err := s.store.Open(ctx, s.root, now, now.Add(s.rootLease))
	switch {
	case errors.Is(err, joinstore.ErrNotFound):
		return inRenewed{} // gone (expired or purged): nothing to recover
	case err != nil:
		s.log.Warn("renewal failed", "session", s.root.String(), "err", err)
		return inRenewed{Err: err}
	}
	return inRenewed{Opening: o, Read: true}
}

// inspect reads the live count, the next due time and whether wake-ups
// are still queued.
func (s *sessionIO) inspect(ctx context.Context) input {
	var in inInspected
	meta, err := s.store.SessionMeta(ctx, s.root)
	if err != nil {
		in.Err = err
		return in
	}
	if in.Next, in.NextOK, err = s.store.NextDue(ctx, s.root); err != nil {
		in.Err = err
		return in
	}
	wakes, err := s.store.PendingWakes(ctx, s.root)
	in.Live, in.Finished, in.PendingWake, in.Err = meta.Live, meta.Status == joinstore.SessionFinished, len(wakes) > 0, err
	return in
}

func (s *sessionIO) logRecovered(res map[int64]joinstore.ReleaseResult) {
	for it, r := range res {
		switch {
		case r == joinstore.Abandoned:
			s.log.Warn("process abandoned: its replica stopped every time it ran", "session", s.root.String(), "pid", s.root.Pid(it))
		case r == joinstore.Executing && s.act == nil:
			s.log.Error("a process executes but executions are off on this replica: it is left to a replica with executions on",
				"session", s.root.String(), "pid", s.root.Pid(it))
		}
	}
}

// send sends an execution with its scope: the session's owner, id,
// registry and gas budget (its meta, read once) and the step's rule
// contract.
func (s *sessionIO) send(ctx context.Context, c cmdSend) input {
	// Sends of one session run concurrently: the scope is read once.
	s.scopeMu.Lock()
	if s.scope == nil {
		meta, err := s.store.SessionMeta(ctx, s.root)
		if err != nil {
			s.scopeMu.Unlock()
			return inSent{Iter: c.Claim.Iter, Err: err}
		}
		sc := execution.Scope{Owner: common.HexToAddress(s.root.Owner), Session: uint64(s.root.RootPid)}
		// A session of a registry on chain has its address as xrc729; one
		// started from a file names its source ("file", "bench"): no
		// registry to check authority on.
		if reg := meta.XRC729; common.IsHexAddress(reg) {
			sc.Registry = common.HexToAddress(reg)
		}
		if v := meta.MaxTotalGas; v != "" {
			if sc.MaxTotalGas, err = strconv.ParseUint(v, 10, 64); err != nil {
				s.scopeMu.Unlock()
				return inSent{Iter: c.Claim.Iter, Err: &execution.Refusal{Limit: "maxTotalGas",
					Reason: fmt.Sprintf("session %s: meta maxTotalGas %q is not a gas amount", s.root, v)}}
			}
		}
		s.scope = &sc
	}
	sc := *s.scope
	s.scopeMu.Unlock()
	sc.Pid, sc.RuleContract = c.Claim.Pid, c.RuleContract
	err := s.act.Send(ctx, sc, c.Key, c.Call)
	if err != nil {
		var refusal *execution.Refusal
		switch {
		case errors.As(err, &refusal):
			// The step fails: an operator's alert, not a warning. The
			// key, target, limit and reason only (never the call's data);
			// a sealed step's target and reason are withheld.
			to, reason := c.Call.To.Hex(), refusal.Reason
			if c.Sealed {
				to, reason = sealedWithheld, sealedWithheld
			}
			s.log.Error("execution refused", "session", s.root.String(), "pid", c.Claim.Pid, "step", c.Claim.ResumeStep, "key", c.Key,
				"to", to, "limit", refusal.Limit, "reason", reason)
		default:
			s.log.Warn("execution not sent; retrying", "session", s.root.String(), "pid", c.Claim.Pid, "key", c.Key, "err", publicErr(err, c.Sealed))
		}
	}
	return inSent{Iter: c.Claim.Iter, Err: err}
}

// logFailedExecution writes the ERROR line of a final execution that did
// not succeed: reverted on chain (the step flips to invalid, or stays
// invalid) or lost (its nonce was used by another transaction). It names
// the key, the target, the transaction and the node's reason, never the
// call's data or the step's payload (a sealed step's target and reason
// are withheld: they may quote its payload).
func (s *sessionIO) logFailedExecution(c cmdPoll, o execution.Outcome) {
	to, lost, reverted := c.To.Hex(), o.Error, o.RevertReason
	if c.Sealed {
		to, lost, reverted = sealedWithheld, sealedWithheld, sealedWithheld
	}
	switch {
	case o.Lost:
		s.log.Error("execution lost", "session", s.root.String(), "pid", c.Claim.Pid, "step", c.Claim.ResumeStep, "key", c.Key,
			"to", to, "reason", lost)
	case o.Status != 1:
		s.log.Error("execution reverted", "session", s.root.String(), "pid", c.Claim.Pid, "step", c.Claim.ResumeStep, "key", c.Key,
			"to", to, "tx", o.TxHash.Hex(), "block", o.Block, "gasUsed", o.GasUsed, "reason", reverted)
	}
}

// flipStep renders the step's onInvalid branch after its execution
// reverted.
func (s *sessionIO) flipStep(ctx context.Context, c cmdFlip) input {
	in := inFlipped{Iter: c.Claim.Iter}
	step := s.orch.Step(c.Claim.ResumeStep)
	switch {
	case s.flip == nil:
		in.Err = errors.New("no onInvalid renderer is configured (Flipper)")
		return in
	case step == nil:
		in.Err = fmt.Errorf("%s runs step %q, which orchestration %q does not have", c.Claim.Pid, c.Claim.ResumeStep, s.orch.ID)
		return in
	}
	payload, err := UnmarshalPayload(c.Claim.ResumePlain)
	if err != nil {
		in.Err = fmt.Errorf("%s: resumePlain: %w", c.Claim.Pid, err)
		return in
	}
	in.R, in.Err = s.flip.Flip(ctx, Execution{Owner: s.root.Owner, Session: s.root.RootPid, Pid: c.Claim.Pid, Step: step, Payload: payload, Orchestration: s.orch}, c.Flip)
	return in
}
