package console

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// ActionHeader must be on every action request: a page of another origin
// cannot send it without a CORS preflight, which the console never allows.
const ActionHeader = "X-XGR-Console"

// PermitTTL is how long the permits the page signs are valid.
const PermitTTL = 5 * time.Minute

// maxActionBody caps an action request's body.
const maxActionBody = 1 << 20

// guard refuses action requests another origin could have sent: without
// the console's header, not JSON, or from a foreign Origin.
func guard(r *http.Request) *problem {
	if r.Header.Get(ActionHeader) != "1" {
		return &problem{Status: http.StatusForbidden, Error: "missing header " + ActionHeader + ": 1 (actions come from the console page)"}
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		return &problem{Status: http.StatusUnsupportedMediaType, Error: fmt.Sprintf("Content-Type %q: want application/json", ct)}
	}
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host {
			return &problem{Status: http.StatusForbidden, Error: fmt.Sprintf("Origin %q: actions are accepted from the console's own origin (host %s) only", o, r.Host)}
		}
	}
	return nil
}

// ActionRequest names what an action acts on.
type ActionRequest struct {
	// Action is kill or wake (permit requests).
	Action string `json:"action,omitempty"`
	Owner  string `json:"owner"`
	// RootPid names the session (kill, and a wake by step); Pid the
	// process (wake, "root:iter").
	RootPid int64  `json:"rootPid,omitempty"`
	Pid     string `json:"pid,omitempty"`
	// Step, instead of Pid, wakes every process of the session waiting on
	// that step (direct wakes only).
	Step string `json:"step,omitempty"`
	// Payload is merged into a woken process's payload (a JSON object).
	Payload json.RawMessage `json:"payload,omitempty"`
	// From is the wallet account that will sign (permit requests).
	From string `json:"from,omitempty"`
}

// readAction reads and checks an action request: the guard, the body,
// the owner, and the session (kill) or process (wake) named.
// byStep allows a wake by step (req.Step; iter is then 0).
func readAction(r *http.Request, action string, byStep bool) (ActionRequest, joinstore.Root, int64, *problem) {
	var req ActionRequest
	if p := guard(r); p != nil {
		return req, joinstore.Root{}, 0, p
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxActionBody+1))
	if err != nil || len(body) > maxActionBody {
		return req, joinstore.Root{}, 0, badRequest("body: unreadable or over %d bytes", maxActionBody)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, joinstore.Root{}, 0, badRequest("body: %v (want a JSON object {owner, rootPid | pid, payload})", err)
	}
	if action == "" {
		action = req.Action
	}
	root := joinstore.Root{Owner: joinstore.NormalizeOwner(req.Owner)}
	if err := joinstore.CheckOwner(root.Owner); err != nil {
		return req, root, 0, badRequest("owner: %v", err)
	}
	var iter int64
	switch action {
	case "kill":
		if req.RootPid <= 0 {
			return req, root, 0, badRequest("rootPid %d: want the session's root pid (a positive number)", req.RootPid)
		}
		root.RootPid = req.RootPid
	case "wake":
		switch {
		case req.Step != "" && !byStep:
			return req, root, 0, badRequest("step %q: wakes by step are direct actions (--ui-actions); a permit wakes one pid", req.Step)
		case req.Step != "" && req.Pid != "":
			return req, root, 0, badRequest("step %q and pid %q: name one of them", req.Step, req.Pid)
		case req.Step != "":
			if req.RootPid <= 0 {
				return req, root, 0, badRequest("rootPid %d: a wake by step needs the session's root pid (a positive number)", req.RootPid)
			}
			if len(req.Step) > MaxSearch {
				return req, root, 0, badRequest("step: %d bytes, want at most %d", len(req.Step), MaxSearch)
			}
			root.RootPid = req.RootPid
		default:
			if root.RootPid, iter, err = joinstore.ParsePid(req.Pid); err != nil {
				return req, root, 0, badRequest("pid: %v", err)
			}
		}
		if len(req.Payload) > 0 && string(req.Payload) != "null" {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(req.Payload, &obj); err != nil || obj == nil {
				return req, root, 0, badRequest("payload: want a JSON object to merge into the process's payload")
			}
		}
	default:
		return req, root, 0, badRequest("action %q: want kill or wake", action)
	}
	return req, root, iter, nil
}

// handleKill kills a whole session directly (DirectActions only).
func (c *Console) handleKill(w http.ResponseWriter, r *http.Request) {
	if !c.cfg.DirectActions {
		directOff().write(w)
		return
	}
	_, root, _, p := readAction(r, "kill", false)
	if p != nil {
		p.write(w)
		return
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	if err := c.cfg.Store.CheckSession(ctx, root); err != nil {
		serverError(w, err)
		return
	}
	res, err := reactor.Kill(ctx, c.cfg.Store, root, c.cfg.Now())
	if err != nil {
		serverError(w, err)
		return
	}
	out := map[string]string{}
	for it, v := range res.Results {
		out[root.Pid(it)] = v
	}
	c.cfg.Log.Info("session killed from the console", "owner", root.Owner, "session", root.RootPid, "live", res.Live)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "live": res.Live, "results": out})
}

// handleWake wakes one waiting process directly as an operator
// (DirectActions only), merging the payload.
func (c *Console) handleWake(w http.ResponseWriter, r *http.Request) {
	if !c.cfg.DirectActions {
		directOff().write(w)
		return
	}
	req, root, iter, p := readAction(r, "wake", true)
	if p != nil {
		p.write(w)
		return
	}
	wreq := reactor.WakeRequest{Runner: root.Owner, Operator: true, Step: req.Step}
	var iters []int64
	if req.Step == "" {
		iters = []int64{iter}
	}
	if len(req.Payload) > 0 && string(req.Payload) != "null" {
		var err error
		if wreq.Overlay, err = reactor.ParseWakePayload(req.Payload); err != nil {
			badRequest("payload: %v", err).write(w)
			return
		}
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	if req.Step != "" {
		if err := c.cfg.Store.CheckSession(ctx, root); err != nil {
			serverError(w, err)
			return
		}
	}
	res, notes, err := reactor.Wake(ctx, c.cfg.Store, root, "", iters, wreq, "console operator", c.cfg.Now())
	if err != nil {
		serverError(w, err)
		return
	}
	outcome := reactor.WakeOutcome(root, req.Step, res, notes)
	status := http.StatusOK
	if len(res.Woken) == 0 {
		status = http.StatusConflict
	}
	writeJSON(w, status, map[string]any{"ok": len(res.Woken) > 0, "woken": len(res.Woken), "processes": notes, "outcome": outcome})
}

func directOff() *problem {
	return &problem{Status: http.StatusForbidden, Error: "direct actions are off: start the replica with --ui-actions on a loopback --listen address, or act through the JSON-RPC gateway with a wallet"}
}

// PermitRequest is the answer to a permit request: the typed data the
// page's wallet signs (eth_signTypedData_v4) and the gateway method the
// signed permit goes to.
type PermitRequest struct {
	TypedData json.RawMessage `json:"typedData"`
	Method    string          `json:"method"`
}

// handlePermit builds the unsigned control permit of a kill or a pid-mode
// wake for the wallet account "from". A kill: a ControlPermit when from is
// the session's owner, else a ControlPermitV2 naming the owner as runner
// (the gateway then says who may act). A wake: a ControlPermitV3 naming the
// owner as runner and bound to the process and to the request's payload
// (its permit.PayloadHash), which the page must send unchanged in value.
func (c *Console) handlePermit(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Gateway == nil {
		(&problem{Status: http.StatusNotFound, Error: "no JSON-RPC gateway: start the replica with --rpc-listen to act with permits"}).write(w)
		return
	}
	req, root, iter, p := readAction(r, "", false)
	if p != nil {
		p.write(w)
		return
	}
	if !common.IsHexAddress(req.From) {
		badRequest("from %q: want the wallet account (0x and 40 hex digits)", req.From).write(w)
		return
	}
	m := permit.ControlMsg{From: common.HexToAddress(req.From), Runner: common.HexToAddress(root.Owner),
		SessionID: new(big.Int).SetInt64(root.RootPid), Action: permit.Action(req.Action),
		Expiry: big.NewInt(c.cfg.Now().Add(PermitTTL).Unix())}
	chainID := new(big.Int).SetUint64(c.cfg.ChainID)
	var raw []byte
	var err error
	if req.Action == "wake" {
		m.Pid = root.Pid(iter)
		if m.PayloadHash, err = permit.PayloadHash(req.Payload); err != nil {
			badRequest("payload: %v", err).write(w)
			return
		}
		raw, err = permit.ControlTypedDataV3(chainID, c.cfg.ControlContract, m)
	} else {
		raw, err = permit.ControlTypedData(chainID, c.cfg.ControlContract, m, m.From != m.Runner)
	}
	if err != nil {
		badRequest("%v", err).write(w)
		return
	}
	method := map[string]string{"kill": "xgr_control", "wake": "xgr_wakeUpProcess"}[req.Action]
	writeJSON(w, http.StatusOK, PermitRequest{TypedData: raw, Method: method})
}

// handleRPC passes the page's JSON-RPC calls to the gateway, so that the
// page talks to its own origin only.
func (c *Console) handleRPC(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Gateway == nil {
		(&problem{Status: http.StatusNotFound, Error: "no JSON-RPC gateway: start the replica with --rpc-listen"}).write(w)
		return
	}
	if p := guard(r); p != nil {
		p.write(w)
		return
	}
	c.cfg.Gateway.ServeHTTP(w, r)
}
