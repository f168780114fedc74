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
	v, release, err := s.control(ctx, req.Permit, permit.ActionKill, "action-not-supported",
		"xgr_control performs kill only; the permit allows %q (a wake goes through xgr_wakeUpProcess)")
	if err != nil {
		return nil, err
	}
	defer release()
	c := v.Control
	if req.Action != "" && req.Action != string(c.Action) {
		return nil, invalid("action", "%q differs from the permit's action %q", req.Action, c.Action)
	}
	if c.From != c.Runner {
		return nil, fail(CodeUnauthorized, "not-runner", "permit.message.from",
			"a kill must be signed by the session's runner %s, not %s", c.Runner.Hex(), c.From.Hex())
	}
	root := joinstore.Root{Owner: owner(c.Runner), RootPid: v.SessionID}
	if _, err := s.cfg.Store.Session(ctx, root); joinstoreNotFound(err) {
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
// under scope rpc. The payload is merged without its "_" keys. A permit
// wakes at most once: its digest is the wake's id.
func (s *Service) WakeUpProcess(ctx context.Context, req WakeRequest) (*WakeResult, error) {
	v, release, err := s.control(ctx, req.Permit, permit.ActionWake, "wrong-action",
		"xgr_wakeUpProcess needs a permit with action \"wake\", not %q")
	if err != nil {
		return nil, err
	}
	defer release()
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
	wreq := reactor.WakeRequest{Runner: root.Owner, Step: c.StepID, Caller: wakeup.Caller{Scope: wakeup.ScopeRPC, Address: owner(c.From)}}
	if len(req.Payload) > 0 && string(req.Payload) != "null" {
		if wreq.Overlay, err = reactor.ParseWakePayload(req.Payload); err != nil || wreq.Overlay == nil {
			return nil, invalid("payload", "want a JSON object to merge into the payload (%v)", err)
		}
	}
	res, notes, err := reactor.Wake(ctx, s.cfg.Store, root, "permit:"+v.Digest.Hex(), iters, wreq, "rpc "+owner(c.From), s.cfg.Now())
	switch {
	case joinstoreNotFound(err) && out.Mode == "pid":
		// A missing process record: of an existing session, or of none.
		if _, serr := s.cfg.Store.Session(ctx, root); serr == nil {
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
		return nil, notWoken(root, c.StepID, notes)
	}
	out.OK = true
	return out, nil
}

// control takes a connection slot and verifies a ControlPermit (or V2)
// for action; a permit for another action is refused with reason and the
// message (one %q for the permit's action). release gives the slot back.
func (s *Service) control(ctx context.Context, raw []byte, action permit.Action, reason, msg string) (*permit.Verified, func(), error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, nil, err
	}
	v, err := s.verify(raw, "permit", permit.KindControl, permit.KindControlV2)
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
