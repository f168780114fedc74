package rpc

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/session"
)

// startRefusal is how the gateway answers a start refused with a kind: a
// JSON-RPC code and data.reason.
type startRefusal struct {
	code   int
	reason string
}

// startRefusals maps every kind of the start use case to the gateway's
// answer (docs/operating.md, "Starting a session", has the table of every
// front door).
var startRefusals = map[session.Kind]startRefusal{
	session.KindInvalidRequest:       {CodeInvalidParams, "invalid-params"},
	session.KindPayloadTooLarge:      {CodeInvalidParams, "invalid-params"},
	session.KindPayloadInvalid:       {CodeInvalidParams, "invalid-params"},
	session.KindAuthorityRequired:    {CodeInternal, "internal"}, // the gateway always has an authority
	session.KindNotAuthorized:        {CodeRunnerNotAuthorized, authority.Reason},
	session.KindUnknownOrchestration: {CodeNotFound, "unknown-orchestration"},
	session.KindHashMismatch:         {CodeConflict, "ostc-hash-mismatch"},
	session.KindUnknownStep:          {CodeInvalidParams, "invalid-params"},
	session.KindRuleUnresolved:       {CodeRuleUnresolved, authority.ReasonUnresolved},
	session.KindStaleRoot:            {CodeConflict, "stale-session-id"},
	session.KindQuota:                {CodeLimit, "quota-exceeded"},
	session.KindUnavailable:          {CodeInternal, "internal"},
}

// startPaths maps the use case's request fields to the gateway's request:
// the permit's message fields, stepId, orchestration.
var startPaths = map[string]string{
	"owner": "permit.message.from", "registry": "orchestration", "ostcId": "permit.message.ostcId",
	"ostcHash": "permit.message.ostcHash", "step": "stepId", "rootPid": "permit.message.sessionId", "key": "permit",
}

// startPath is the gateway's JSON path of a use-case path: payload paths
// as they are, a step's rule reference at the permit's ostcId.
func startPath(p string) string {
	switch {
	case p == "payload" || strings.HasPrefix(p, "payload.") || strings.HasPrefix(p, "payload["):
		return p
	case strings.HasPrefix(p, "structure."):
		return "permit.message.ostcId"
	}
	return startPaths[p]
}

// startError is the gateway's answer to a start the use case refused (or
// could not decide) for the permit's signer who and its sessionId.
func (s *Service) startError(ctx context.Context, err error, who string, sessionID int64) *Error {
	var se *session.Error
	if !errors.As(err, &se) {
		return internal("start", err)
	}
	r, ok := startRefusals[se.Kind]
	if !ok || r.code == CodeInternal {
		return internal("start", err)
	}
	path := startPath(se.Path)
	at := path // the message names the request field; data.path the place in it
	if strings.HasPrefix(path, "payload") {
		at = "payload"
	}
	e := &Error{Code: r.code, Msg: at + ": " + se.Error(), Reason: r.reason, Path: path}
	var ue *authority.UnresolvedError
	var ae *authority.Error
	switch {
	case errors.As(err, &ue):
		e.Extra = map[string]any{"ostcId": ue.OstcID, "step": ue.Step, "rule": ue.Rule}
	case errors.As(err, &ae):
		r := ae.Refused
		e.Extra = map[string]any{"runner": ae.Runner.Hex(), "contract": r.Contract.Hex(), "kind": string(r.Kind),
			"executorList": r.ExecutorList, "missing": ae.Missing, "rulesChecked": !ae.RulesUnchecked}
		if r.Owner != nil {
			e.Extra["owner"] = r.Owner.Hex()
		}
		if len(r.Uses) > 0 {
			e.Extra["uses"] = r.Uses
		}
	case se.Kind == session.KindStaleRoot:
		next, _ := s.cfg.Store.NextRootPid(ctx, who)
		e = fail(r.code, r.reason, path,
			"%d is not the signer's next root session id (%d): sign a permit for xgr_getNextProcessId's value", sessionID, next)
		e.Extra = map[string]any{"next": strconv.FormatInt(next, 10)}
	}
	return e
}
