package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// StepLogRequest is the parameter of xgr_getStepLog (an xgr method: the
// endpoint reference has none that reads a step's log bundle): the
// bundle of process Pid of session SessionID of Owner, read by the
// xdalaPermit's signer.
type StepLogRequest struct {
	Owner     string `json:"owner"`
	SessionID string `json:"sessionId"`
	// Pid is "<sessionId>:<iter>" or the iteration alone.
	Pid    string          `json:"pid"`
	Permit json.RawMessage `json:"permit"`
}

// StepLog is the result of xgr_getStepLog: the bundle's JSON (Bundle),
// or for an encrypted one its XGR1 envelope (Blob) and the reader's
// wrapped data key (EncDEK, scope 2, for the envelope's RID).
type StepLog struct {
	Owner     string `json:"owner"`
	SessionID string `json:"sessionId"`
	Pid       string `json:"pid"`
	RID       string `json:"rid"`
	Encrypted bool   `json:"encrypted"`
	// Status is the process's status as its commit recorded it (done or
	// aborted; "" for a bundle stored without its commit), AbortReason
	// why it aborted (a step killed while it ran keeps the outcome its
	// rule decided in the bundle).
	Status      string          `json:"status,omitempty"`
	AbortReason string          `json:"abortReason,omitempty"`
	Bundle      json.RawMessage `json:"bundle,omitempty"`
	Suite       string          `json:"suite,omitempty"`
	Blob        string          `json:"blob,omitempty"`
	EncDEK      string          `json:"encDEK,omitempty"`
}

// GetStepLog implements xgr_getStepLog. The reader is authorized before
// the bundle is read: the session owner at once (the key names it), any
// other signer only with a live READ grant on the bundle's RID in scope 2
// (the gateway reads the bundle's RID field and the signer's grant, never
// the body, before deciding). Every other signer gets the same refusal
// whether the bundle exists or not.
func (s *Service) GetStepLog(ctx context.Context, req StepLogRequest) (*StepLog, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.cfg.Evidence == nil || s.cfg.GrantStore == nil {
		return nil, notConfigured("xgr_getStepLog")
	}
	own, err := grant.NormalizeAddress(req.Owner)
	if err != nil {
		return nil, invalid("owner", "%v", err)
	}
	sid, err := strconv.ParseInt(req.SessionID, 10, 64)
	if err != nil || sid <= 0 {
		return nil, invalid("sessionId", "%q: want a root session id (a positive decimal number)", clip(req.SessionID))
	}
	pid := req.Pid
	if !strings.Contains(pid, ":") {
		pid = req.SessionID + ":" + pid
	}
	root, iter, err := joinstore.ParsePid(pid)
	if err != nil || root != sid {
		return nil, invalid("pid", "%q: want <sessionId>:<iter> of session %d, or the iteration", clip(req.Pid), sid)
	}
	v, err := s.verify(req.Permit, "permit", permit.KindXdala)
	if err != nil {
		return nil, err
	}
	who := owner(v.Signer)
	done, err := s.budget(v.Signer)
	if err != nil {
		return nil, err
	}
	out, err := s.stepLog(ctx, own, sid, iter, who)
	done(err)
	return out, err
}

func (s *Service) stepLog(ctx context.Context, own string, sid, iter int64, who string) (*StepLog, error) {
	pid := strconv.FormatInt(sid, 10) + ":" + strconv.FormatInt(iter, 10)
	denied := func() error {
		return fail(CodeUnauthorized, "not-a-reader", "permit.message.from",
			"%s may not read the log of process %s of %s: only the session owner and grantees with a live READ grant on the bundle (scope 2) may", who, pid, own)
	}
	h, err := s.cfg.Evidence.Head(ctx, own, sid, iter)
	switch {
	case errors.Is(err, evidence.ErrNotFound) && who == own:
		return nil, fail(CodeNotFound, "unknown-log", "pid", "no log bundle for process %s of %s (never written or expired)", pid, own)
	case errors.Is(err, evidence.ErrNotFound):
		return nil, denied()
	case err != nil:
		return nil, internal("log bundle", err)
	}
	var g *grant.Grant
	if who != own || h.Encrypted {
		if g, err = s.cfg.GrantStore.Get(ctx, h.RID, grant.ScopeLog, who); err != nil {
			return nil, internal("grant", err)
		}
	}
	if !evidence.MayRead(own, who, h.RID, g, s.cfg.Now()) {
		return nil, denied()
	}
	body, err := s.cfg.Evidence.Body(ctx, own, sid, iter)
	if errors.Is(err, evidence.ErrNotFound) {
		return nil, fail(CodeNotFound, "unknown-log", "pid", "the log bundle of process %s of %s expired", pid, own)
	} else if err != nil {
		return nil, internal("log bundle", err)
	}
	out := &StepLog{Owner: own, SessionID: strconv.FormatInt(sid, 10), Pid: pid, RID: h.RID.String(), Encrypted: h.Encrypted,
		Status: h.Status, AbortReason: h.AbortReason}
	if !h.Encrypted {
		out.Bundle = json.RawMessage(body)
		return out, nil
	}
	out.Suite, out.Blob = "AESGCM256", body
	if g != nil {
		out.EncDEK = g.EncDEK
	}
	return out, nil
}
