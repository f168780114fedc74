package rpc

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// MaxList caps how many sessions one xgr_listSessions call returns in
// owner mode, and how many processes in allow mode.
const MaxList = 1000

// MaxListRows caps the rows (processes) of one owner-mode
// xgr_listSessions call; ListResult.Truncated says that more were left out.
const MaxListRows = 10000

// ListSessions implements xgr_listSessions. Owner mode (permit: an
// xdalaPermit) lists the signer's sessions, newest first (order "asc":
// oldest first), "last" sessions from "offset" on, or only "rootId", each
// with its processes in iteration order; "parentPid" filters the rows.
// Allow mode (runner and controlPermit: a ControlPermitV2 with action wake)
// lists the waiting processes of the signed session that the signer may
// wake: all of them for the runner, else those whose __wakeUp list names
// the signer under scope rpc; a signed stepId restricts it to that step.
func (s *Service) ListSessions(ctx context.Context, req ListRequest) (*ListResult, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if req.View != "" && req.View != "raw" {
		return nil, invalid("view", "%q: only \"raw\" is supported", req.View)
	}
	if req.Last < 0 || req.Last > MaxList {
		return nil, invalid("last", "%d: want 1..%d (default 100)", req.Last, MaxList)
	}
	if req.Offset < 0 {
		return nil, invalid("offset", "%d: want 0 or more", req.Offset)
	}
	if req.Order != "" && req.Order != "asc" && req.Order != "desc" {
		return nil, invalid("order", "%q: want asc or desc", req.Order)
	}
	if req.Runner != "" || len(req.ControlPermit) > 0 {
		return s.listAllowed(ctx, req)
	}
	v, err := s.verify(req.Permit, "permit", permit.KindXdala)
	if err != nil {
		return nil, err
	}
	who := owner(v.Signer)
	var roots []joinstore.Root
	if req.RootID != "" {
		id, err := strconv.ParseInt(req.RootID, 10, 64)
		if err != nil || id <= 0 {
			return nil, invalid("rootId", "%q: want a root session id (a positive decimal number)", req.RootID)
		}
		roots = []joinstore.Root{{Owner: who, RootPid: id}}
	} else {
		last := req.Last
		if last == 0 {
			last = 100
		}
		refs, err := s.cfg.Store.Sessions(ctx, who, req.Offset, last, req.Order == "asc")
		if err != nil {
			return nil, internal("sessions", err)
		}
		for _, r := range refs {
			roots = append(roots, r.Root)
		}
	}
	out := &ListResult{Sessions: []SessionRow{}}
	for _, root := range roots {
		// A meta field that does not parse (ErrBadRecord) leaves the rows
		// listed, without an outcome.
		meta, err := s.cfg.Store.SessionMeta(ctx, root)
		badMeta := errors.Is(err, joinstore.ErrBadRecord)
		if joinstoreNotFound(err) {
			continue
		} else if err != nil && !badMeta {
			return nil, internal("session", err)
		}
		states, more, err := s.cfg.Store.ProcStates(ctx, root, meta.Iter, func(p joinstore.ProcState) bool {
			return req.ParentPid == "" || p.ParentPid == req.ParentPid
		}, MaxListRows-len(out.Sessions))
		if err != nil {
			return nil, internal("processes", err)
		}
		outcome := ""
		if !badMeta {
			outcome = string(joinstore.OutcomeOf(meta))
		}
		for _, p := range states {
			row := stateRow(root, meta, p)
			row.Outcome = outcome
			out.Sessions = append(out.Sessions, row)
		}
		if more {
			out.Truncated = true
			break
		}
	}
	return out, nil
}

// listAllowed is allow mode: the signer's to-do list in one session. The
// signer is authorized from the session's meta (its allow list) before any
// process is read; the rows come from the processes' state fields, never
// their payloads, at most "last" (default and cap MaxList) of them.
func (s *Service) listAllowed(ctx context.Context, req ListRequest) (*ListResult, error) {
	if !common.IsHexAddress(req.Runner) {
		return nil, invalid("runner", "allow mode needs the session owner's address (0x and 40 hex digits), got %q", req.Runner)
	}
	v, err := s.verify(req.ControlPermit, "controlPermit", permit.KindControlV2)
	if err != nil {
		return nil, err
	}
	done, err := s.budget(v.Control.From)
	if err != nil {
		return nil, err
	}
	out, denied, err := s.allowed(ctx, req, v)
	if denied {
		// An empty list, as for a session with nothing to wake, but it
		// counts against the signer's budget like a refusal.
		done(notAllowed(owner(v.Control.From), joinstore.Root{}, v.Control.StepID))
		return out, nil
	}
	done(err)
	return out, err
}

// allowed lists what the signer of v may wake; denied reports that the
// session's allow list lets it wake nothing asked for.
func (s *Service) allowed(ctx context.Context, req ListRequest, v *permit.Verified) (*ListResult, bool, error) {
	c := v.Control
	if c.Action != permit.ActionWake {
		return nil, false, fail(CodeUnauthorized, "wrong-action", "controlPermit.message.action", "allow mode needs a permit with action \"wake\", not %q", c.Action)
	}
	if common.HexToAddress(req.Runner) != c.Runner {
		return nil, false, fail(CodeUnauthorized, "runner-mismatch", "runner", "%s is not the permit's runner %s", req.Runner, c.Runner.Hex())
	}
	if req.RootID != "" && req.RootID != strconv.FormatInt(v.SessionID, 10) {
		return nil, false, invalid("rootId", "%q must equal the permit's sessionId %d", req.RootID, v.SessionID)
	}
	root := joinstore.Root{Owner: owner(c.Runner), RootPid: v.SessionID}
	out := &ListResult{Sessions: []SessionRow{}}
	gate, err := s.cfg.Store.WakeGate(ctx, root, "")
	if joinstoreNotFound(err) {
		return out, false, nil
	} else if err != nil {
		return nil, false, internal("session", err)
	}
	caller := wakeup.Caller{Scope: wakeup.ScopeRPC, Address: owner(c.From)}
	may := func(step string) bool {
		return wakeup.AuthorizeSession(root.Owner, step, gate.AllowList, caller).Allowed
	}
	if c.StepID != "" && !may(c.StepID) || c.StepID == "" && !wakeup.MaySomeStep(root.Owner, gate.AllowList, caller) {
		return out, true, nil
	}
	if gate.Killed {
		return out, false, nil // a killed session wakes nothing
	}
	limit := MaxList
	if req.Last > 0 {
		limit = req.Last
	}
	byStep := map[string]bool{}
	states, _, err := s.cfg.Store.ProcStates(ctx, root, gate.Last, func(p joinstore.ProcState) bool {
		if p.Status != "waiting" || p.Killed || p.JoinOpen || c.StepID != "" && p.Step != c.StepID {
			return false
		}
		ok, seen := byStep[p.Step]
		if !seen {
			ok = may(p.Step)
			byStep[p.Step] = ok
		}
		return ok
	}, limit)
	if err != nil {
		return nil, false, internal("processes", err)
	}
	var meta joinstore.SessionMeta
	if len(states) > 0 {
		if meta, err = s.cfg.Store.SessionMeta(ctx, root); err != nil && !joinstoreNotFound(err) && !errors.Is(err, joinstore.ErrBadRecord) {
			return nil, false, internal("session", err)
		}
	}
	for _, p := range states {
		r := stateRow(root, meta, p)
		r.ParentPid = ""
		out.Sessions = append(out.Sessions, r)
	}
	return out, false, nil
}

// stateRow is one listed process, from its state fields.
func stateRow(root joinstore.Root, meta joinstore.SessionMeta, p joinstore.ProcState) SessionRow {
	var updated int64
	if !p.UpdatedAt.IsZero() {
		updated = p.UpdatedAt.UnixMilli()
	}
	return SessionRow{
		Owner: root.Owner, SessionID: strconv.FormatInt(root.RootPid, 10), Pid: p.Pid, ParentPid: p.ParentPid,
		Step: p.Step, Status: string(p.Status), Updated: updated / 1000, IterationStep: p.Iter,
		XRC729: strings.ToLower(meta.XRC729), OstcID: meta.OstcID, JoinGroupID: p.JoinGroupID, JoinFromGroupID: p.JoinFromGroupID,
	}
}
