package rpc

import (
	"context"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// Control implements xgr_control: kill a whole session under a
// ControlPermit (or V2) with action kill, signed by the session's runner.
// A kill is idempotent: a second one affects nothing.
func (s *Service) Control(ctx context.Context, req ControlRequest) (*ControlResult, error) {
	v, release, err := s.control(ctx, req.Permit, nil, permit.ActionKill, "action-not-supported",
		"xgr_control performs kill only; the permit allows %q (a wake goes through xgr_wakeUpProcess)")
	if err != nil {
		return nil, err
	}
	defer release()
	done, err := s.budget(v.Control.From)
	if err != nil {
		return nil, err
	}
	out, err := s.kill(ctx, req, v)
	done(err)
	return out, err
}

// kill is xgr_control after the permit and the signer's budget.
func (s *Service) kill(ctx context.Context, req ControlRequest, v *permit.Verified) (*ControlResult, error) {
	c := v.Control
	if req.Action != "" && req.Action != string(c.Action) {
		return nil, invalid("action", "%q differs from the permit's action %q", req.Action, c.Action)
	}
	if c.From != c.Runner {
		return nil, fail(CodeUnauthorized, "not-runner", "permit.message.from",
			"a kill must be signed by the session's runner %s, not %s", c.Runner.Hex(), c.From.Hex())
	}
	root := joinstore.Root{Owner: owner(c.Runner), RootPid: v.SessionID}
	if err := s.cfg.Store.CheckSession(ctx, root); joinstoreNotFound(err) {
		return nil, fail(CodeNotFound, "unknown-session", "permit.message.sessionId", "%s has no session %d", root.Owner, root.RootPid)
	} else if err != nil {
		return nil, internal("session", err)
	}
	res, err := reactor.Kill(ctx, s.cfg.Store, root, s.cfg.Now())
	if err != nil {
		return nil, internal("kill", err)
	}
	affected := 0
	for _, r := range res.Results {
		if r == "aborted" {
			affected++
		}
	}
	s.cfg.Log.Info("session killed over RPC", "owner", root.Owner, "session", root.RootPid, "affected", affected)
	return &ControlResult{OK: true, Owner: root.Owner, ProcessID: root.RootPid, Action: string(c.Action), Status: "killed", Affected: affected}, nil
}

// WakeUpProcess implements xgr_wakeUpProcess under a ControlPermit (or V2)
// with action wake. Pid mode (processId given, the permit's stepId empty)
// wakes that process of the signed session and needs the runner's
// signature. Step mode (the permit's stepId set) wakes every process of the
// session waiting on that step; with a ControlPermitV2 another signer may
// wake on the runner's behalf where the process's __wakeUp list names it
// under scope rpc. The payload is merged without its "_" keys. A
// ControlPermitV3 must sign this request's processId ("" in step mode) and
// payload. A permit wakes at most once: its digest is the wake's id.
func (s *Service) WakeUpProcess(ctx context.Context, req WakeRequest) (*WakeResult, error) {
	v, release, err := s.control(ctx, req.Permit, &permit.Request{Pid: req.ProcessID, Payload: req.Payload}, permit.ActionWake, "wrong-action",
		"xgr_wakeUpProcess needs a permit with action \"wake\", not %q")
	if err != nil {
		return nil, err
	}
	defer release()
	done, err := s.budget(v.Control.From)
	if err != nil {
		return nil, err
	}
	out, err := s.wake(ctx, req, v)
	done(err)
	return out, err
}

// wake is xgr_wakeUpProcess after the permit and the signer's budget. In
// step mode the signer is authorized from the session's meta before any
// process is read, the candidates are found from their state fields
// (capped at MaxWakeCandidates), and only their payloads are read.
func (s *Service) wake(ctx context.Context, req WakeRequest, v *permit.Verified) (*WakeResult, error) {
	c := v.Control
	root := joinstore.Root{Owner: owner(c.Runner), RootPid: v.SessionID}
	out := &WakeResult{Owner: root.Owner, SessionID: root.RootPid, RootPid: strconv.FormatInt(root.RootPid, 10), Mode: "step"}
	var iters []int64
	switch {
	case req.ProcessID != "" && c.StepID != "":
		return nil, invalid("permit.message.stepId", "pid mode (a processId is given) needs a permit with an empty stepId; for step mode leave processId out")
	case req.ProcessID != "":
		rootPid, iter, err := joinstore.ParsePid(req.ProcessID)
		if err != nil {
			return nil, invalid("processId", "%v", err)
		}
		if rootPid != root.RootPid {
			return nil, fail(CodeUnauthorized, "outside-session", "processId", "%s is not a process of the signed session %d", req.ProcessID, root.RootPid)
		}
		if c.From != c.Runner {
			return nil, fail(CodeUnauthorized, "not-runner", "permit.message.from",
				"pid mode must be signed by the session's runner %s; a delegate (%s) wakes in step mode with a ControlPermitV2", c.Runner.Hex(), c.From.Hex())
		}
		iters, out.Mode = []int64{iter}, "pid"
	case c.StepID == "":
		return nil, invalid("processId", "name the process to wake (pid mode) or sign a stepId (step mode)")
	}
	var err error
	wreq := reactor.WakeRequest{Runner: root.Owner, Step: c.StepID, Caller: wakeup.Caller{Scope: wakeup.ScopeRPC, Address: owner(c.From)}}
	if len(req.Payload) > 0 && string(req.Payload) != "null" {
		if wreq.Overlay, err = reactor.ParseWakePayload(req.Payload); err != nil || wreq.Overlay == nil {
			return nil, invalid("payload", "want a JSON object to merge into the payload (%v)", err)
		}
	}
	if out.Mode == "step" {
		if iters, out.More, err = s.stepCandidates(ctx, root, "permit:"+v.Digest.Hex(), c.StepID, wreq.Caller); err != nil {
			return nil, err
		}
	}
	res, notes, err := reactor.Wake(ctx, s.cfg.Store, root, "permit:"+v.Digest.Hex(), iters, wreq, "rpc "+owner(c.From), s.cfg.Now())
	switch {
	case joinstoreNotFound(err) && out.Mode == "pid":
		// A missing process record: of an existing session, or of none.
		if serr := s.cfg.Store.CheckSession(ctx, root); serr == nil {
			return nil, fail(CodeNotFound, "no-waiting-process", "processId", "session %d of %s has no process %s", root.RootPid, root.Owner, req.ProcessID)
		} else if !joinstoreNotFound(serr) {
			return nil, internal("session", serr)
		}
		return nil, fail(CodeNotFound, "unknown-session", "permit.message.sessionId", "%s has no session %d", root.Owner, root.RootPid)
	case joinstoreNotFound(err):
		return nil, fail(CodeNotFound, "unknown-session", "permit.message.sessionId", "%v", err)
	case err != nil:
		return nil, internal("wake", err)
	case res.Duplicate:
		return nil, fail(CodeReplay, "permit-reused", "permit", "this permit woke session %d before; a wake permit acts once", root.RootPid)
	case res.Killed:
		return nil, fail(CodeConflict, "session-killed", "permit.message.sessionId", "session %d of %s was killed", root.RootPid, root.Owner)
	}
	for _, n := range notes {
		out.Processes = append(out.Processes, WakeNote(n))
	}
	out.Woken = len(res.Woken)
	if out.Woken == 0 {
		if c.From != c.Runner {
			return nil, fail(CodeConflict, "not-waiting", "", "nothing woken: the processes of session %d waiting on step %q changed or could not be woken", root.RootPid, c.StepID)
		}
		return nil, notWoken(root, c.StepID, notes)
	}
	out.OK = true
	return out, nil
}

// control takes a connection slot and verifies a ControlPermit (or V2)
// for action, or with a request (a wake) also a ControlPermitV3 bound to
// it; a permit for another action is refused with reason and the message
// (one %q for the permit's action). release gives the slot back.
func (s *Service) control(ctx context.Context, raw []byte, req *permit.Request, action permit.Action, reason, msg string) (*permit.Verified, func(), error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, nil, err
	}
	kinds := []permit.Kind{permit.KindControl, permit.KindControlV2}
	if req != nil {
		kinds = append(kinds, permit.KindControlV3)
	}
	v, err := s.verifyFor(raw, "permit", req, kinds...)
	if err == nil && v.Control.Action != action {
		err = fail(CodeUnauthorized, reason, "permit.message.action", msg, v.Control.Action)
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return v, release, nil
}

// notWoken explains a wake that woke nothing: denied by the allow list,
// nothing waiting, or no such process.
func notWoken(root joinstore.Root, step string, notes []reactor.WakeNote) *Error {
	if len(notes) == 0 {
		return fail(CodeNotFound, "no-waiting-process", "permit.message.stepId", "no process of session %d waits on step %q", root.RootPid, step)
	}
	reasons := make([]string, len(notes))
	denied := false
	for i, n := range notes {
		reasons[i] = n.Pid + " " + n.Reason
		denied = denied || strings.HasPrefix(n.Reason, "denied")
	}
	e := fail(CodeConflict, "not-waiting", "", "nothing woken: %s", strings.Join(reasons, "; "))
	if denied {
		e.Code, e.Reason, e.Path = CodeUnauthorized, "not-allowed", "permit.message.from"
		e.Msg = "permit.message.from: nothing woken: " + strings.Join(reasons, "; ")
	}
	return e
}

// MaxWakeCandidates caps the processes one step-mode wake considers and
// wakes; WakeResult.More says that more wait on the step.
const MaxWakeCandidates = 256

// stepCandidates authorizes a step-mode wake and finds its candidates
// without reading any process payload: the session's allow list comes
// from its meta (one HMGET), and a signer it does not allow for step is
// refused before any process is read, with a message that names no process
// and no part of the list; a permit that woke the session before is
// refused as reused. Then the waiting processes of step are found from
// their state fields, at most MaxWakeCandidates of them.
func (s *Service) stepCandidates(ctx context.Context, root joinstore.Root, id, step string, caller wakeup.Caller) ([]int64, bool, error) {
	gate, err := s.cfg.Store.WakeGate(ctx, root, id)
	switch {
	case joinstoreNotFound(err):
		return nil, false, fail(CodeNotFound, "unknown-session", "permit.message.sessionId", "%s has no session %d", root.Owner, root.RootPid)
	case err != nil:
		return nil, false, internal("session", err)
	}
	if d := wakeup.AuthorizeSession(root.Owner, step, gate.AllowList, caller); !d.Allowed {
		return nil, false, notAllowed(caller.Address, root, step)
	}
	if gate.Applied {
		return nil, false, fail(CodeReplay, "permit-reused", "permit", "this permit woke session %d before; a wake permit acts once", root.RootPid)
	}
	if gate.Killed {
		return nil, false, fail(CodeConflict, "session-killed", "permit.message.sessionId", "session %d of %s was killed", root.RootPid, root.Owner)
	}
	others := 0
	states, more, err := s.cfg.Store.ProcStates(ctx, root, gate.Last, func(p joinstore.ProcState) bool {
		if p.Step != step {
			return false
		}
		if p.Status != "waiting" || p.Killed || p.JoinOpen {
			others++
			return false
		}
		return true
	}, MaxWakeCandidates)
	if err != nil {
		return nil, false, internal("processes", err)
	}
	if len(states) == 0 {
		if others > 0 {
			return nil, false, fail(CodeConflict, "not-waiting", "permit.message.stepId",
				"nothing woken: the %d process(es) of session %d on step %q are running, finished, killed or join targets whose join is still open", others, root.RootPid, step)
		}
		return nil, false, fail(CodeNotFound, "no-waiting-process", "permit.message.stepId", "no process of session %d waits on step %q", root.RootPid, step)
	}
	iters := make([]int64, len(states))
	for i, p := range states {
		iters[i] = p.Iter
	}
	return iters, more, nil
}

// notAllowed refuses a signer that may not wake on step: it names the
// signer, the session and the step, never a process or the allow list.
func notAllowed(signer string, root joinstore.Root, step string) *Error {
	return fail(CodeUnauthorized, "not-allowed", "permit.message.from",
		"%s may not wake processes of session %d of %s waiting on step %q: it is not the session's runner, and the session's __wakeUp allow list does not let it wake that step under rpc",
		signer, root.RootPid, root.Owner, step)
}
