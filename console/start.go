package console

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
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

// ParseStart reads and checks a start request.
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
	if len(f.Payload) > 0 && string(f.Payload) != "null" {
		if err := reactor.CheckStartPayload(f.Payload); err != nil {
			return f, root, badRequest("payload: %v", err)
		}
	} else {
		f.Payload = nil
	}
	return f, root, nil
}

// handleStart starts a session directly (DirectActions only), as `xgr
// session start` does; on a chain registry only with Config.Authority,
// which checks the owner's authority on it as `--rpc` does.
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
	req := reactor.StartRequest{Owner: tmpl.Owner, XRC729: meta.XRC729, OstcID: meta.OstcID, OstcHash: meta.OstcHash,
		Step: f.Step, Payload: f.Payload, IdempotencyKey: f.Key}
	if req.Step == "" {
		req.Step = meta.StartStep
	}
	if req.IdempotencyKey == "" {
		b := make([]byte, 16)
		rand.Read(b)
		req.IdempotencyKey = "console-" + hex.EncodeToString(b)
	}
	var res joinstore.StartResult
	switch {
	case !common.IsHexAddress(req.XRC729):
		res, err = reactor.Start(ctx, c.cfg.Store, c.cfg.Source, req, c.cfg.Now())
	case c.cfg.Authority == nil:
		(&problem{Status: http.StatusForbidden, Error: fmt.Sprintf("registry %s is on chain: this replica cannot check the owner's authority on it (start through the gateway with a SessionPermit, or xgr session start --rpc)", req.XRC729)}).write(w)
		return
	default:
		res, err = reactor.StartGated(ctx, c.cfg.Store, c.cfg.Source, req, c.cfg.Now(), c.cfg.Authority)
	}
	if err != nil {
		badRequest("start %s at %s: %v", req.OstcID, req.Step, err).write(w)
		return
	}
	c.cfg.Log.Info("session started from the console", "owner", res.Root.Owner, "session", res.Root.RootPid, "ostc", req.OstcID, "startKey", res.StartKey)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "owner": res.Root.Owner, "rootPid": res.Root.RootPid, "pid": res.Pid, "startKey": res.StartKey, "ack": res.Ack})
}
