package console

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// MaxBulk caps the sessions one bulk action names.
const MaxBulk = 100

// BulkActions are the actions a bulk request may take.
var BulkActions = []string{"kill", "pause", "resume"}

// BulkRequest kills, pauses or resumes whole sessions.
type BulkRequest struct {
	Action   string        `json:"action"`
	Sessions []SessionName `json:"sessions"`
}

// SessionName names one session.
type SessionName struct {
	Owner   string `json:"owner"`
	RootPid int64  `json:"rootPid"`
}

// BulkResult is what a bulk action did to one session: Results maps its
// processes to what happened to them (aborted, killing, paused, resumed,
// finished), or Error says why nothing was done.
type BulkResult struct {
	Owner   string            `json:"owner"`
	RootPid int64             `json:"rootPid"`
	OK      bool              `json:"ok"`
	Results map[string]string `json:"results,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// ParseBulk reads and checks a bulk request: a known action and 1 to
// MaxBulk sessions with valid owners and root pids (repeats dropped). A
// bad request names the first wrong entry (sessions[i].field).
func ParseBulk(body []byte) (BulkRequest, []joinstore.Root, *problem) {
	var req BulkRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, nil, badRequest("body: %v (want {action, sessions: [{owner, rootPid}]})", err)
	}
	if !contains(BulkActions, req.Action) {
		return req, nil, badRequest("action %q: want one of %s", req.Action, strings.Join(BulkActions, ", "))
	}
	if len(req.Sessions) == 0 || len(req.Sessions) > MaxBulk {
		return req, nil, badRequest("sessions: %d named, want 1 to %d", len(req.Sessions), MaxBulk)
	}
	seen := map[joinstore.Root]bool{}
	var roots []joinstore.Root
	for i, s := range req.Sessions {
		r := joinstore.Root{Owner: joinstore.NormalizeOwner(s.Owner), RootPid: s.RootPid}
		if err := joinstore.CheckOwner(r.Owner); err != nil {
			return req, nil, badRequest("sessions[%d].owner: %v", i, err)
		}
		if r.RootPid <= 0 {
			return req, nil, badRequest("sessions[%d].rootPid %d: want the session's root pid (a positive number)", i, r.RootPid)
		}
		if !seen[r] {
			seen[r] = true
			roots = append(roots, r)
		}
	}
	return req, roots, nil
}

// handleBulk kills, pauses or resumes several sessions directly
// (DirectActions only), one after the other; one that fails does not stop
// the others, and each says what happened.
func (c *Console) handleBulk(w http.ResponseWriter, r *http.Request) {
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
	req, roots, p := ParseBulk(body)
	if p != nil {
		p.write(w)
		return
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	out := make([]BulkResult, 0, len(roots))
	done := 0
	for _, root := range roots {
		res := BulkResult{Owner: root.Owner, RootPid: root.RootPid}
		if err := c.cfg.Store.CheckSession(ctx, root); err != nil {
			res.Error = err.Error()
			out = append(out, res)
			continue
		}
		var byIter map[int64]string
		now := c.cfg.Now()
		switch req.Action {
		case "kill":
			var kr joinstore.KillResult
			kr, err = reactor.Kill(ctx, c.cfg.Store, root, now)
			byIter = kr.Results
		case "pause", "resume":
			byIter, err = c.cfg.Store.Pause(ctx, root, now, req.Action == "pause")
		}
		if err != nil {
			res.Error = err.Error()
		} else {
			res.OK, res.Results = true, map[string]string{}
			for it, v := range byIter {
				res.Results[root.Pid(it)] = v
			}
			done++
		}
		out = append(out, res)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].RootPid < out[j].RootPid })
	c.cfg.Log.Info(fmt.Sprintf("sessions %s from the console", map[string]string{"kill": "killed", "pause": "paused", "resume": "resumed"}[req.Action]),
		"sessions", len(roots), "done", done)
	writeJSON(w, http.StatusOK, map[string]any{"ok": done == len(roots), "action": req.Action, "done": done, "sessions": out})
}
