package rpc

import (
	"context"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// MaxList caps how many sessions one xgr_listSessions call returns.
const MaxList = 1000

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
		meta, err := s.cfg.Store.Session(ctx, root)
		if joinstoreNotFound(err) {
			continue
		} else if err != nil {
			return nil, internal("session", err)
		}
		procs, err := s.cfg.Store.Processes(ctx, root)
		if err != nil && !joinstoreNotFound(err) {
			return nil, internal("processes", err)
		}
		for _, p := range procs {
			if req.ParentPid != "" && p["parentPid"] != req.ParentPid {
				continue
			}
			out.Sessions = append(out.Sessions, row(root, meta, p))
		}
	}
	return out, nil
}

// listAllowed is allow mode: the signer's to-do list in one session.
func (s *Service) listAllowed(ctx context.Context, req ListRequest) (*ListResult, error) {
	if !common.IsHexAddress(req.Runner) {
		return nil, invalid("runner", "allow mode needs the session owner's address (0x and 40 hex digits), got %q", req.Runner)
	}
	v, err := s.verify(req.ControlPermit, "controlPermit", permit.KindControlV2)
	if err != nil {
		return nil, err
	}
	c := v.Control
	if c.Action != permit.ActionWake {
		return nil, fail(CodeUnauthorized, "wrong-action", "controlPermit.message.action", "allow mode needs a permit with action \"wake\", not %q", c.Action)
	}
	if common.HexToAddress(req.Runner) != c.Runner {
		return nil, fail(CodeUnauthorized, "runner-mismatch", "runner", "%s is not the permit's runner %s", req.Runner, c.Runner.Hex())
	}
	if req.RootID != "" && req.RootID != strconv.FormatInt(v.SessionID, 10) {
		return nil, invalid("rootId", "%q must equal the permit's sessionId %d", req.RootID, v.SessionID)
	}
	root := joinstore.Root{Owner: owner(c.Runner), RootPid: v.SessionID}
	meta, err := s.cfg.Store.Session(ctx, root)
	if joinstoreNotFound(err) {
		return &ListResult{Sessions: []SessionRow{}}, nil
	} else if err != nil {
		return nil, internal("session", err)
	}
	procs, err := s.cfg.Store.WaitingProcs(ctx, root, c.StepID, nil)
	if err != nil && !joinstoreNotFound(err) {
		return nil, internal("processes", err)
	}
	_, notes, err := reactor.DecideWake(reactor.WakeRequest{Runner: root.Owner, Step: c.StepID,
		Caller: wakeup.Caller{Scope: wakeup.ScopeRPC, Address: owner(c.From)}}, procs)
	if err != nil {
		return nil, internal("allow list", err)
	}
	allowed := map[string]bool{}
	for _, n := range notes {
		allowed[n.Pid] = n.Woken
	}
	all, err := s.cfg.Store.Processes(ctx, root)
	if err != nil {
		return nil, internal("processes", err)
	}
	out := &ListResult{Sessions: []SessionRow{}}
	for _, p := range all {
		if allowed[p["pid"]] {
			r := row(root, meta, p)
			r.ParentPid = ""
			out.Sessions = append(out.Sessions, r)
		}
	}
	if req.Last > 0 && len(out.Sessions) > req.Last {
		out.Sessions = out.Sessions[:req.Last]
	}
	return out, nil
}

// row is one listed process.
func row(root joinstore.Root, meta, p map[string]string) SessionRow {
	_, iter, _ := joinstore.ParsePid(p["pid"])
	updated, _ := strconv.ParseInt(p["updatedAt"], 10, 64)
	return SessionRow{
		Owner: root.Owner, SessionID: strconv.FormatInt(root.RootPid, 10), Pid: p["pid"], ParentPid: p["parentPid"],
		Step: p["resumeStep"], Status: p["status"], Updated: updated / 1000, IterationStep: iter,
		XRC729: strings.ToLower(meta["xrc729"]), OstcID: meta["ostcId"], JoinGroupID: p["joinGroupId"], JoinFromGroupID: p["joinFromGroupId"],
	}
}
