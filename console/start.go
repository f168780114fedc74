package console

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/session"
)

// StartForm starts a session of the orchestration another session runs
// (the same registry, id and pinned hash), for that session's owner.
type StartForm struct {
	Owner string `json:"owner"`
	// RootPid names the session whose orchestration is started again.
	RootPid int64 `json:"rootPid"`
	// Step is the start step ("" = the template session's start step).
	Step string `json:"step,omitempty"`
	// Key is the idempotency key ("" = a new one, "console-<hex>").
	Key     string          `json:"key,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// ParseStart reads a start request and checks the form's own fields; the
// start use case checks the rest (the payload among them).
func ParseStart(body []byte) (StartForm, joinstore.Root, *problem) {
	var f StartForm
	if err := json.Unmarshal(body, &f); err != nil {
		return f, joinstore.Root{}, badRequest("body: %v (want {owner, rootPid, step, key, payload})", err)
	}
	root := joinstore.Root{Owner: joinstore.NormalizeOwner(f.Owner), RootPid: f.RootPid}
	if err := joinstore.CheckOwner(root.Owner); err != nil {
		return f, root, badRequest("owner: %v", err)
	}
	switch {
	case root.RootPid <= 0:
		return f, root, badRequest("rootPid %d: want the root pid of the session whose orchestration to start (a positive number)", root.RootPid)
	case len(f.Step) > MaxSearch:
		return f, root, badRequest("step: %d bytes, want at most %d", len(f.Step), MaxSearch)
	case len(f.Key) > MaxSearch:
		return f, root, badRequest("key: %d bytes, want at most %d", len(f.Key), MaxSearch)
	}
	if string(f.Payload) == "null" {
		f.Payload = nil
	}
	return f, root, nil
}

// handleStart starts a session directly (DirectActions only) through the
// start use case, as `xgr session start` does; on a chain registry only
// with Config.Authority, which checks the owner's authority on it as
// `--rpc` does. A refusal is problem JSON with the use case's kind, path
// and what is allowed, its status by startStatus.
func (c *Console) handleStart(w http.ResponseWriter, r *http.Request) {
	if !c.cfg.DirectActions {
		directOff().write(w)
		return
	}
	if p := guard(r); p != nil {
		p.write(w)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxActionBody+1))
	if err != nil || len(body) > maxActionBody {
		badRequest("body: unreadable or over %d bytes", maxActionBody).write(w)
		return
	}
	f, tmpl, p := ParseStart(body)
	if p != nil {
		p.write(w)
		return
	}
	if c.cfg.Source == nil {
		(&problem{Status: http.StatusNotFound, Error: "this replica serves no orchestrations: start with xgr session start"}).write(w)
		return
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	meta, err := c.cfg.Store.SessionMeta(ctx, tmpl)
	if err != nil {
		serverError(w, err)
		return
	}
	req := session.Request{Owner: tmpl.Owner, Registry: meta.XRC729, OstcID: meta.OstcID, OstcHash: meta.OstcHash,
		Step: f.Step, Payload: f.Payload, Key: f.Key}
	if req.Step == "" {
		req.Step = meta.StartStep
	}
	if req.Key == "" {
		b := make([]byte, 16)
		rand.Read(b)
		req.Key = "console-" + hex.EncodeToString(b)
	}
	res, err := session.Starter{Store: c.cfg.Store, Source: c.cfg.Source, Authority: c.cfg.Authority, Now: c.cfg.Now}.Start(ctx, req)
	if err != nil {
		startProblem(w, err, req)
		return
	}
	c.cfg.Log.Info("session started from the console", "owner", res.Root.Owner, "session", res.Root.RootPid, "ostc", req.OstcID, "startKey", res.Key)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "owner": res.Root.Owner, "rootPid": res.Root.RootPid, "pid": res.Pid, "startKey": res.Key, "ack": res.Ack})
}

// startStatus maps every kind of the start use case to the console's
// HTTP status (docs/operating.md, "Starting a session", has the table of
// every front door).
var startStatus = map[session.Kind]int{
	session.KindInvalidRequest:       http.StatusBadRequest,
	session.KindPayloadTooLarge:      http.StatusBadRequest,
	session.KindPayloadInvalid:       http.StatusBadRequest,
	session.KindAuthorityRequired:    http.StatusForbidden,
	session.KindNotAuthorized:        http.StatusForbidden,
	session.KindUnknownOrchestration: http.StatusNotFound,
	session.KindHashMismatch:         http.StatusConflict,
	session.KindUnknownStep:          http.StatusBadRequest,
	session.KindRuleUnresolved:       http.StatusUnprocessableEntity,
	session.KindStaleRoot:            http.StatusConflict,
	session.KindQuota:                http.StatusTooManyRequests,
	session.KindUnavailable:          http.StatusServiceUnavailable,
}

// startRefusal is the problem JSON of a refused start: the message, the
// use case's kind, the JSON path and what is allowed there.
type startRefusal struct {
	Error   string       `json:"error"`
	Kind    session.Kind `json:"kind"`
	Path    string       `json:"path,omitempty"`
	Allowed string       `json:"allowed,omitempty"`
}

// startProblem answers a start the use case refused (or could not decide).
func startProblem(w http.ResponseWriter, err error, req session.Request) {
	var se *session.Error
	if !errors.As(err, &se) {
		serverError(w, err)
		return
	}
	msg := fmt.Sprintf("start %s at %s: %v", req.OstcID, req.Step, se)
	if se.Kind == session.KindAuthorityRequired {
		msg += " (start through the gateway with a SessionPermit, or xgr session start --rpc)"
	}
	status, ok := startStatus[se.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, startRefusal{Error: msg, Kind: se.Kind, Path: se.Path, Allowed: se.Allowed})
}
