package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// sessionIO is the IO of one session's root actor. Its methods run on the
// handler's goroutines; they never touch the actor's state, they return
// what the actor needs to know.
type sessionIO struct {
	m     *Manager
	root  joinstore.Root
	token int64
	// adopted is what the adoption read (joinstore.Adopt); setup takes it
	// instead of reading the session again.
	adopted *joinstore.Adoption
	// orch and table are set by setup, before any other call.
	orch  *registry.Orchestration
	table joinstore.StepTable
	// killed: the session was killed (a command or a cap); claim rounds
	// reap instead. Atomic: the renewal (recover) runs concurrently with
	// the actor's other store calls.
	killed atomic.Bool
}

func (s *sessionIO) emit(e Event) {
	if s.m.OnEvent != nil {
		s.m.OnEvent(s.root, e)
	}
}

// opened is what setup found: processes the adoption claimed, processes
// due now, the next due time, and whether a claim round must look at the
// due set again (recovery put processes back).
type opened struct {
	claims  []joinstore.Claim
	ready   []int64
	next    time.Time
	nextOK  bool
	recheck bool
}

// setup takes what the adoption read (or reads the session in one round
// trip, joinstore.Open), loads the orchestration, recovers processes a
// dead replica left running, performs wake-ups and applies join
// deliveries it left pending.
func (s *sessionIO) setup(ctx context.Context) (opened, error) {
	now := time.Now()
	var o joinstore.Opening
	var claims []joinstore.Claim
	if a := s.adopted; a != nil {
		o, claims, s.adopted = a.Opening, a.Claims, nil
	} else {
		var err error
		if o, err = s.m.Store.Open(ctx, s.root, now, now.Add(s.m.RootLease)); err != nil {
			return opened{}, err
		}
	}
	meta := o.Meta
	var err error
	if s.orch, err = s.m.Source.Orchestration(ctx, meta["xrc729"], meta["ostcId"], common.HexToHash(meta["ostcHash"])); err != nil {
		// The claimed root process comes back when its lease expires.
		return opened{}, err
	}
	s.table = Table(s.orch)
	out, err := s.resume(ctx, o, now)
	out.claims = claims
	return out, err
}

// resume acts on what Open read: processes a dead replica left running go
// back to the due set once their leases expired, a killed session (a
// command or a cap) has a batch of its waiting processes aborted, queued
// wake-ups (a crash between a commit and their performing) are performed
// and pending join deliveries applied. It returns what is due now (due
// processes and promoted targets).
func (s *sessionIO) resume(ctx context.Context, o joinstore.Opening, now time.Time) (opened, error) {
	if o.Meta["killedAt"] != "" {
		s.killed.Store(true)
	}
	out := opened{ready: o.Due, next: o.Next, nextOK: o.NextOK}
	if len(o.Expired) > 0 {
		rec, err := s.m.Store.Recover(ctx, s.root, now)
		if err != nil {
			return opened{}, err
		}
		for it, r := range rec {
			if r == joinstore.Abandoned {
				pid := s.root.Pid(it)
				s.m.Log.Warn("process abandoned: its replica stopped every time it ran", "session", s.root.String(), "pid", pid)
				s.emit(Event{At: now, Type: "aborted", Pid: pid, Detail: "abandoned: recovered from an expired lease too often"})
			}
		}
		out.recheck = true
	}
	if s.killed.Load() {
		if _, err := s.reap(ctx, now); err != nil {
			return opened{}, err
		}
		out.recheck = true
	}
	if err := s.wakes(ctx, o.Wakes); err != nil {
		return opened{}, err
	}
	work := make([]joinstore.FollowUp, 0, len(o.PendingJoins))
	for _, t := range o.PendingJoins {
		work = append(work, joinstore.FollowUp{Target: t})
	}
	promoted, err := s.joins(ctx, work)
	out.ready = append(out.ready, promoted...)
	return out, err
}

// claimed is what a claim round found.
type claimed struct {
	claims []joinstore.Claim
	// next is the earliest future due time (ok false when none); with
	// keepNext the round did not read the due set and says nothing of it.
	next     time.Time
	ok       bool
	keepNext bool
}

// claim claims due processes up to the window: the known-ready ones
// directly, otherwise what the due set holds; busy are processes already in
// flight here.
func (s *sessionIO) claim(ctx context.Context, ready []int64, busy map[int64]bool) (claimed, error) {
	now := time.Now()
	if s.killed.Load() {
		return s.reap(ctx, now)
	}
	var out claimed
	iters := ready
	if len(iters) == 0 {
		var err error
		if iters, out.next, out.ok, err = s.m.Store.Due(ctx, s.root, now, 64); err != nil || len(iters) == 0 {
			return out, err
		}
	} else {
		// Ready work is claimed without reading the due set: what the
		// actor knows of later due times stays.
		out.keepNext = true
	}
	fresh := iters[:0:0]
	for _, it := range iters {
		if !busy[it] {
			fresh = append(fresh, it)
		}
	}
	claims, err := s.m.Store.Claim(ctx, s.root, now, s.m.ProcLease, s.m.Replica, s.table, fresh)
	if errors.Is(err, joinstore.ErrSessionKilled) {
		s.killed.Store(true)
		return s.reap(ctx, now)
	}
	if err != nil {
		return out, err
	}
	out.claims = claims
	if len(claims) < len(fresh) {
		// The window is full (or a ready process is not due yet): look
		// again after a poll interval.
		out.next, out.ok, out.keepNext = now.Add(s.m.Poll), true, false
	}
	return out, nil
}

// reap aborts a batch of a killed session's waiting processes (and applies
// the failures they deliver to open join targets); while some are left it
// asks to look again at once, then polls until the running ones commit.
func (s *sessionIO) reap(ctx context.Context, now time.Time) (claimed, error) {
	res, err := Reap(ctx, s.m.Store, s.root, now)
	if err != nil {
		return claimed{}, err
	}
	var work []joinstore.FollowUp
	for _, f := range res.FollowUps {
		if !f.Kill {
			work = append(work, f)
		}
	}
	if _, err := s.joins(ctx, work); err != nil {
		return claimed{}, err
	}
	switch {
	case res.Live <= 0:
		return claimed{}, nil
	case len(res.Results) > 0:
		return claimed{next: now, ok: true}, nil
	}
	return claimed{next: now.Add(s.m.Poll), ok: true}, nil
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
	r.res, r.err = s.m.Exec.Execute(ctx, Execution{Owner: s.root.Owner, Session: s.root.RootPid, Pid: c.Pid, Step: step, Payload: r.input, Orchestration: s.orch})
	return r
}

// result is one execution's outcome.
type result struct {
	claim joinstore.Claim
	res   Result
	err   error
	input map[string]any
	// inputRaw is the input as stored: passed on unchanged when the step
	// adds nothing to it.
	inputRaw json.RawMessage
}

// applied is what applying one result leaves the actor to do.
type applied struct {
	// ready are processes due now that are not claimed yet (children over
	// the window, promoted join targets).
	ready []int64
	// claims are children the commit claimed, to execute at once with
	// input as their payload.
	claims []joinstore.Claim
	input  map[string]any
	// wake is the earliest due time of a child created for later (ok
	// false when none).
	wake   time.Time
	wakeOK bool
	// recheck asks for a claim round (the session was killed or capped).
	recheck bool
	// finished: the commit ended the session (no live process, no wake-up
	// queued); its cross-slot index updates wait for the release.
	finished bool
}

// apply commits one execution's result, claims the children that are
// ready now in the same script, and runs the join steps it causes.
func (s *sessionIO) apply(ctx context.Context, r result) (applied, error) {
	var out applied
	now := time.Now()
	c := r.claim
	step := s.orch.Step(c.ResumeStep)
	commit, detail, next := commitFor(c, step, s.m.Store.CheckPayload, r, now, s.m.Replica)
	for i := range commit.Children {
		lim := s.table[commit.Children[i].ResumeStep]
		commit.Children[i].Reserve, commit.Children[i].Bypass = lim.Reserve, lim.Bypass
	}
	commit.ClaimLease, commit.DeferFinish = s.m.ProcLease, true
	s.emit(Event{At: now, Type: "executed", Pid: c.Pid, Step: c.ResumeStep, Detail: detail})
	if commit.Status == "aborted" {
		s.m.Log.Warn("step aborted", "session", s.root.String(), "pid", c.Pid, "step", c.ResumeStep, "reason", commit.AbortReason)
	}
	cr, err := s.m.Store.Commit(ctx, c, now, commit)
	if errors.Is(err, joinstore.ErrLeaseLost) {
		// Another holder owns the process now; this result is void.
		s.emit(Event{At: now, Type: "ignored", Pid: c.Pid, Detail: "lease lost; result discarded"})
		return out, nil
	}
	if err != nil {
		if _, rerr := s.m.Store.Release(ctx, c, now, now); rerr != nil {
			return out, errors.Join(err, rerr)
		}
		return out, err
	}
	if cr.Cancelled {
		s.killed.Store(true)
		s.m.Log.Warn("session cancelled by its step", "session", s.root.String(), "pid", c.Pid, "reason", commit.CancelSession)
		s.emit(Event{At: now, Type: "cancelled", Pid: c.Pid, Step: c.ResumeStep, Detail: commit.CancelSession})
	}
	if cr.Capped != "" {
		s.killed.Store(true)
		s.m.Log.Warn("session killed by a cap", "session", s.root.String(), "pid", c.Pid, "reason", cr.Capped)
		s.emit(Event{At: now, Type: "capped", Pid: c.Pid, Step: c.ResumeStep, Detail: cr.Capped})
	}
	out.recheck = cr.Killed
	out.finished = cr.Live <= 0 && len(cr.Wakes) == 0
	out.claims, out.input = cr.Claims, next
	claimed := make(map[int64]bool, len(cr.Claims))
	for _, cl := range cr.Claims {
		claimed[cl.Iter] = true
	}
	var work []joinstore.FollowUp
	if !cr.Killed {
		for _, ch := range commit.Children {
			s.emit(Event{At: now, Type: "spawned", Pid: c.Root.Pid(ch.Iter), Step: ch.ResumeStep})
			switch {
			case ch.Join != nil:
				work = append(work, joinstore.FollowUp{Target: ch.Iter})
			case claimed[ch.Iter]:
			case !ch.NextWakeAt.After(now):
				out.ready = append(out.ready, ch.Iter)
			case !out.wakeOK || ch.NextWakeAt.Before(out.wake):
				out.wake, out.wakeOK = ch.NextWakeAt, true
			}
		}
	}
	if cr.DeliveredTo != 0 {
		work = append(work, joinstore.FollowUp{Target: cr.DeliveredTo})
	}
	promoted, err := s.joins(ctx, work)
	if err == nil && len(cr.Wakes) > 0 {
		err = s.wakes(ctx, cr.Wakes)
	}
	out.ready = append(out.ready, promoted...)
	return out, err
}

// wakes performs queued wake-ups of this session.
func (s *sessionIO) wakes(ctx context.Context, w []joinstore.PendingWake) error {
	return performWakes(ctx, s.m.Store, s.root, w, time.Now, s.emit, s.m.poke)
}

// commitFor turns an execution's outcome into the commit of its process:
// payload flow, the children of the selected branch and its wake-ups; a
// hard error aborts the process with the error as its reason. The detail
// is the timeline's account of the execution.
func commitFor(c joinstore.Claim, step *registry.Step, check func(what string, p []byte) error, r result, now time.Time, worker string) (joinstore.Commit, string, map[string]any) {
	commit := joinstore.Commit{Status: "done", Worker: worker}
	detail := "valid"
	var next map[string]any
	if r.err == nil && step != nil {
		if addsNothing(r.res.Output) && r.inputRaw != nil {
			// The payload passes through: no decode and encode round trip.
			next, commit.Payload = r.input, r.inputRaw
		} else {
			next = NextPayload(r.input, r.res.Output)
			commit.Payload = MarshalPayload(next)
		}
		// A payload over the cap aborts the step: nothing it asked for
		// happens (children, wake-ups), and its payload stays the input.
		if err := check("the step's next payload", commit.Payload); err != nil {
			r.err = fmt.Errorf("step %s: %w", c.ResumeStep, err)
		}
	}
	if r.err != nil || step == nil {
		commit.Status = "aborted"
		detail = fmt.Sprint(r.err)
		commit.AbortReason = detail
		if errors.Is(r.err, ErrCancelSession) {
			commit.CancelSession = detail
		}
		next = nil
		if r.inputRaw != nil && r.input != nil {
			commit.Payload = r.inputRaw
		} else {
			commit.Payload = MarshalPayload(r.input)
		}
	} else {
		commit.Valid = &r.res.Valid
		if !r.res.Valid {
			detail = "invalid"
			if len(r.res.Reasons) > 0 {
				detail += ": " + strings.Join(r.res.Reasons, "; ")
			}
		}
		if len(r.res.NotPerformed) > 0 {
			detail += " (not performed: " + strings.Join(r.res.NotPerformed, ", ") + ")"
		}
		commit.WakeUps = wakeEntries(c, r.res)
	}
	if step != nil {
		commit.Children = Children(step, r.err != nil, r.res.Valid, Parent{Group: c.JoinGroupID, FirstChild: c.FirstChild}, commit.Payload, now, r.res.Wait)
	}
	return commit, detail, next
}

// addsNothing reports whether an output leaves the next payload equal to
// the input (no key, or only "_" keys, which NextPayload drops).
func addsNothing(output map[string]any) bool {
	for k := range output {
		if !strings.HasPrefix(k, "_") {
			return false
		}
	}
	return true
}

// joins runs join steps until no follow-up remains; it returns the targets
// it promoted.
func (s *sessionIO) joins(ctx context.Context, work []joinstore.FollowUp) ([]int64, error) {
	var promoted []int64
	for len(work) > 0 {
		f := work[0]
		work = work[1:]
		decide := func(v joinstore.JoinView) (joinstore.JoinApply, error) {
			if f.Kill {
				return KillGroup(v)
			}
			ap, _, err := DecideJoin(v, s.orch.CanReach)
			return ap, err
		}
		now := time.Now()
		res, err := s.m.Store.JoinStep(ctx, s.root, f.Target, now, s.m.ProcLease, decide)
		switch {
		case errors.Is(err, joinstore.ErrNotFound), errors.Is(err, joinstore.ErrJoinBusy):
			continue
		case err != nil:
			return promoted, err
		}
		for _, v := range res.Verdicts {
			switch v {
			case joinstore.VerdictSatisfied:
				s.emit(Event{At: now, Type: "join_closed", Pid: s.root.Pid(f.Target)})
				promoted = append(promoted, f.Target) // claim skips it if its nextWakeAt is later
			case joinstore.VerdictUnfulfillable:
				s.emit(Event{At: now, Type: "join_aborted", Pid: s.root.Pid(f.Target)})
			}
		}
		for _, it := range res.Killed {
			s.emit(Event{At: now, Type: "killed", Pid: s.root.Pid(it), Detail: "join " + s.root.Pid(f.Target) + " closed with kill"})
		}
		work = append(work, res.FollowUps...)
	}
	return promoted, nil
}

// renew extends the root lease and the leases of the executions in flight;
// ErrRootHeld means another replica took the session.
func (s *sessionIO) renew(ctx context.Context, inflight []joinstore.Claim) ([]int64, error) {
	if _, err := s.m.Store.AcquireRoot(ctx, s.root, s.m.Replica, s.m.RootLease); err != nil && !errors.Is(err, joinstore.ErrFinished) {
		return nil, err
	}
	for _, c := range inflight {
		switch _, err := s.m.Store.Renew(ctx, c, time.Now(), s.m.ProcLease); {
		case errors.Is(err, joinstore.ErrLeaseLost):
			// Usually its own commit came first (the renewal read the
			// in-flight list before it); a real loss shows at the commit.
			s.m.Log.Debug("lease not renewed: no longer held", "pid", c.Pid, "err", err)
		case err != nil:
			s.m.Log.Warn("lease renewal failed", "pid", c.Pid, "err", err)
		}
	}
	// Processes a dead replica left running come back once their leases
	// expire; deliveries pushed by others (a kill) are applied: the same
	// one-round-trip read as at setup, which also marks the root.
	now := time.Now()
	o, err := s.m.Store.Open(ctx, s.root, now, now.Add(s.m.RootLease))
	if errors.Is(err, joinstore.ErrNotFound) {
		return nil, nil // gone (expired or purged): nothing to recover
	}
	if err != nil {
		return nil, err
	}
	res, err := s.resume(ctx, o, now)
	return res.ready, err
}

// releaseFinished hands back a session that finished with this actor's
// last commit: one round trip for the lease and the indexes.
func (s *sessionIO) releaseFinished(ctx context.Context) {
	if err := s.m.Store.ReleaseFinished(ctx, s.root, s.m.Replica, s.token, time.Now()); err != nil {
		s.m.Log.Warn("releasing a finished session failed", "session", s.root.String(), "err", err)
	}
}

// release hands the session back: its root lease goes, and the root index
// says when another replica should look at it (its next due time).
func (s *sessionIO) release(ctx context.Context) {
	next, ok, err := s.m.Store.NextDue(ctx, s.root)
	meta, merr := s.m.Store.Session(ctx, s.root)
	wakes, werr := s.m.Store.PendingWakes(ctx, s.root)
	var mark time.Time
	switch {
	case err != nil || merr != nil || werr != nil:
	case len(wakes) > 0:
		// Wake-ups still to perform (their targets failed to answer): look
		// again after a lease period.
		mark = time.Now().Add(s.m.RootLease)
	case meta["live"] == "0" || meta["status"] == "finished":
		s.m.Store.UnmarkRoot(ctx, s.root)
	case ok:
		mark = next
	default:
		// Live but nothing due (paused, or targets waiting on work that is
		// not due yet): look again after a lease period.
		mark = time.Now().Add(s.m.RootLease)
	}
	if !mark.IsZero() {
		s.m.Store.MarkRoot(ctx, s.root, mark)
		// A wake between the read above and this mark made work due sooner
		// and marked the root for it, which the mark just overwrote. Wakes
		// make work due before they mark, so a second read sees it.
		if again, ok, err := s.m.Store.NextDue(ctx, s.root); err == nil && ok && again.Before(mark) {
			s.m.Store.MarkRoot(ctx, s.root, again)
		}
	}
	s.m.Store.ReleaseRoot(ctx, s.root, s.m.Replica, s.token)
}
