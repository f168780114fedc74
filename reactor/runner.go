package reactor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// Event is one line of a session's timeline.
type Event struct {
	At     time.Time `json:"at"`
	Type   string    `json:"type"`
	Pid    string    `json:"pid,omitempty"`
	Step   string    `json:"step,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// Runner drives sessions of one orchestration through the store, one step
// at a time in a deterministic order: the synchronous heart of the session
// manager, used by tests and `xgr simulate --deterministic`. Its clock is an
// input, so a virtual clock makes runs reproducible.
type Runner struct {
	Store *joinstore.Store
	Orch  *registry.Orchestration
	Exec  Executor
	// Now returns the current time; Advance moves a virtual clock forward
	// when nothing is due (nil: the runner sleeps until the next due time).
	Now     func() time.Time
	Advance func(time.Time)
	Worker  string
	Lease   time.Duration
	// OnEvent receives the timeline (optional).
	OnEvent func(Event)
	// MaxSteps stops Run with ErrStepLimit once this many steps have been
	// executed (0: no bound), for orchestrations that loop forever.
	MaxSteps int

	table    joinstore.StepTable
	executed int
}

// Executed is the number of steps Run has executed.
func (r *Runner) Executed() int { return r.executed }

func (r *Runner) emit(e Event) {
	if r.OnEvent != nil {
		r.OnEvent(e)
	}
}

// Table is the claim step table of an orchestration.
func Table(o *registry.Orchestration) joinstore.StepTable {
	t := make(joinstore.StepTable, len(o.Steps))
	for _, s := range o.Steps {
		t[s.ID] = joinstore.StepLimits{Reserve: Reserve(s), Bypass: CreatesJoin(s)}
	}
	return t
}

// sleepCtx waits for d or until ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ErrStuck means live processes remain but none will ever become due.
var ErrStuck = errors.New("session is stuck: live processes but nothing due")

// ErrStepLimit means Run stopped at Runner.MaxSteps with work left.
var ErrStepLimit = errors.New("step limit reached")

// Run executes the session until it has no live process.
func (r *Runner) Run(ctx context.Context, root joinstore.Root) error {
	if r.table == nil {
		r.table = Table(r.Orch)
	}
	if r.Lease == 0 {
		r.Lease = time.Minute
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.MaxSteps > 0 && r.executed >= r.MaxSteps {
			return fmt.Errorf("%s: %w after %d executed steps", root, ErrStepLimit, r.executed)
		}
		now := r.Now()
		iters, err := r.Store.DueIters(ctx, root, now, 64)
		if err != nil {
			return err
		}
		if len(iters) == 0 {
			meta, err := r.Store.Session(ctx, root)
			if err != nil {
				return err
			}
			if meta["live"] == "0" {
				return nil
			}
			next, ok, err := r.Store.NextDue(ctx, root)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%s: %w (%s live)", root, ErrStuck, meta["live"])
			}
			if r.Advance != nil {
				r.Advance(next)
			} else if err := sleepCtx(ctx, time.Until(next)); err != nil {
				return err // stopped (a signal, a timeout) while it waited
			}
			continue
		}
		// One worker executes one process at a time: claim the earliest due
		// one only, so every later decision sees its effects.
		claims, err := r.Store.Claim(ctx, root, now, r.Lease, r.Worker, r.table, iters[:1])
		if errors.Is(err, joinstore.ErrSessionKilled) {
			if err := r.reap(ctx, root); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		for _, c := range claims {
			r.emit(Event{At: now, Type: "claimed", Pid: c.Pid, Step: c.ResumeStep})
			if err := r.step(ctx, c); err != nil {
				return err
			}
		}
	}
}

// reap aborts a killed session's waiting processes (a cap or a kill), with
// the joins their failures cause, until none is left.
func (r *Runner) reap(ctx context.Context, root joinstore.Root) error {
	for {
		now := r.Now()
		res, err := Reap(ctx, r.Store, root, now)
		if err != nil {
			return err
		}
		var work []joinstore.FollowUp
		for it, st := range res.Results {
			r.emit(Event{At: now, Type: "killed", Pid: root.Pid(it), Detail: st})
		}
		for _, f := range res.FollowUps {
			if !f.Kill {
				work = append(work, f)
			}
		}
		if err := r.joins(ctx, root, work); err != nil {
			return err
		}
		if len(res.Results) == 0 {
			return nil
		}
	}
}

// step executes one claimed process and applies its result.
func (r *Runner) step(ctx context.Context, c joinstore.Claim) error {
	step := r.Orch.Step(c.ResumeStep)
	if step == nil {
		return fmt.Errorf("%s runs step %q, which the orchestration does not have", c.Pid, c.ResumeStep)
	}
	input, err := UnmarshalPayload(c.ResumePlain)
	if err != nil {
		return fmt.Errorf("%s: resumePlain: %w", c.Pid, err)
	}
	res, execErr := r.Exec.Execute(ctx, Execution{Owner: c.Root.Owner, Session: c.Root.RootPid, Pid: c.Pid, Step: step, Payload: input, Orchestration: r.Orch})
	r.executed++
	now := r.Now()
	commit, detail, _ := commitFor(c, step, r.Store.CheckPayload, result{claim: c, res: res, err: execErr, input: input, inputRaw: c.ResumePlain}, now, r.Worker)
	r.emit(Event{At: now, Type: "executed", Pid: c.Pid, Step: c.ResumeStep, Detail: detail})
	cr, err := r.Store.Commit(ctx, c, now, commit)
	if err != nil {
		return err
	}
	if cr.Killed {
		r.emit(Event{At: now, Type: "killed", Pid: c.Pid, Step: c.ResumeStep})
	}
	killedSession := cr.Capped != "" || cr.Cancelled
	if cr.Cancelled {
		r.emit(Event{At: now, Type: "cancelled", Pid: c.Pid, Step: c.ResumeStep, Detail: commit.CancelSession})
	} else if cr.Capped != "" {
		r.emit(Event{At: now, Type: "capped", Pid: c.Pid, Step: c.ResumeStep, Detail: cr.Capped})
	}
	var work []joinstore.FollowUp
	for _, ch := range commit.Children {
		if cr.Killed {
			break
		}
		r.emit(Event{At: now, Type: "spawned", Pid: c.Root.Pid(ch.Iter), Step: ch.ResumeStep, Detail: "group " + ch.JoinGroupID})
		if ch.Join != nil {
			work = append(work, joinstore.FollowUp{Target: ch.Iter})
		}
	}
	if cr.Gated > 0 {
		r.emit(Event{At: now, Type: "gated", Pid: c.Pid, Detail: fmt.Sprintf("%d spawns dropped", cr.Gated)})
	}
	if cr.DeliveredTo != 0 {
		work = append(work, joinstore.FollowUp{Target: cr.DeliveredTo})
	} else if c.GroupTarget != 0 {
		r.emit(Event{At: now, Type: "ignored", Pid: c.Root.Pid(c.GroupTarget), Step: c.ResumeStep, Detail: "join already decided"})
	}
	if err := r.joins(ctx, c.Root, work); err != nil {
		return err
	}
	if killedSession {
		// The commit's own delivery and the decisions it causes come
		// first, then the kill reaps the waiting processes: the replicas'
		// order (sessionIO.apply runs the joins, the next claim round
		// reaps).
		if err := r.reap(ctx, c.Root); err != nil {
			return err
		}
	}
	return performWakes(ctx, r.Store, c.Root, cr.Wakes, r.Now, r.emit, nil)
}

// joins runs join steps until no follow-up remains.
func (r *Runner) joins(ctx context.Context, root joinstore.Root, work []joinstore.FollowUp) error {
	for len(work) > 0 {
		f := work[0]
		work = work[1:]
		now := r.Now()
		var applied []Applied
		decide := func(v joinstore.JoinView) (joinstore.JoinApply, error) {
			if f.Kill {
				return KillGroup(v)
			}
			a, o, err := DecideJoin(v, r.Orch.CanReach)
			applied = append(applied, o.Deliveries...)
			return a, err
		}
		res, err := r.Store.JoinStep(ctx, root, f.Target, now, r.Lease, decide)
		if errors.Is(err, joinstore.ErrNotFound) {
			continue // a gated target was never created
		}
		if err != nil {
			return err
		}
		pid := root.Pid(f.Target)
		for _, d := range applied {
			r.emit(Event{At: now, Type: deliveryEvent(d.Result), Pid: pid, Step: d.From, Detail: d.Result.String() + " from " + d.Pid})
		}
		for _, v := range res.Verdicts {
			switch v {
			case joinstore.VerdictSatisfied:
				r.emit(Event{At: now, Type: "join_closed", Pid: pid})
				r.emit(Event{At: now, Type: "promoted", Pid: pid})
			case joinstore.VerdictUnfulfillable:
				r.emit(Event{At: now, Type: "join_aborted", Pid: pid})
			}
		}
		for _, it := range res.Killed {
			r.emit(Event{At: now, Type: "killed", Pid: root.Pid(it), Detail: "join " + pid + " closed with kill"})
		}
		work = append(work, res.FollowUps...)
	}
	return nil
}

func deliveryEvent(d DeliveryResult) string {
	switch d {
	case Delivered, Failed:
		return "delivered"
	default:
		return "ignored"
	}
}
