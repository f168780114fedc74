package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Detail is the flow view of one session. Payloads and inboxes of the
// processes are their stored JSON text (every digit as stored); the page
// formats them without turning numbers into floats.
type Detail struct {
	Owner   string `json:"owner"`
	RootPid int64  `json:"rootPid"`
	// Session is the session's meta as stored (joinstore.SessionMeta.Fields),
	// with its outcome once it finished.
	Session   map[string]string        `json:"session"`
	Processes []ProcessView            `json:"processes"`
	Joins     []reactor.JoinSummary    `json:"joins"`
	History   []joinstore.HistoryEntry `json:"history"`
	Graph     Graph                    `json:"graph"`
	// Now is the server's time (unix ms), for due times and leases.
	Now int64 `json:"now"`
}

// read loads a session's meta, processes and history.
func (c *Console) read(ctx context.Context, root joinstore.Root) (meta joinstore.SessionMeta, procs []joinstore.Process, history []joinstore.HistoryEntry, err error) {
	if meta, err = c.cfg.Store.SessionMeta(ctx, root); err != nil {
		return
	}
	if procs, err = c.cfg.Store.Processes(ctx, root); err != nil {
		return
	}
	history, err = c.cfg.Store.History(ctx, root)
	return
}

// sessionRoute serves a handler of one session: the query's owner and
// root name it (a bad one is a 400), and the handler runs with the
// request's deadline.
func sessionRoute(h func(ctx context.Context, w http.ResponseWriter, r *http.Request, root joinstore.Root)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		root, p := rootParam(r)
		if p != nil {
			p.write(w)
			return
		}
		ctx, cancel := reqCtx(r)
		defer cancel()
		h(ctx, w, r, root)
	}
}

func (c *Console) handleSession(ctx context.Context, w http.ResponseWriter, r *http.Request, root joinstore.Root) {
	meta, procs, history, err := c.read(ctx, root)
	if err != nil {
		serverError(w, err)
		return
	}
	sum, err := reactor.Summarize(procs)
	if err != nil {
		serverError(w, err)
		return
	}
	// The merged payload of a closed join is the target's resumePlain,
	// which the page shows from the record, digits intact.
	for i := range sum.Joins {
		sum.Joins[i].Payload = nil
	}
	// The outcome of a finished session, as the list shows it.
	fields := meta.Fields()
	if o := joinstore.OutcomeOf(meta); o != "" {
		fields["outcome"] = string(o)
	}
	writeJSON(w, http.StatusOK, Detail{Owner: root.Owner, RootPid: root.RootPid, Session: fields, Processes: views(procs),
		Joins: sum.Joins, History: history, Graph: ProcessGraph(procs), Now: c.cfg.Now().UnixMilli()})
}

// OrchestrationView is the orchestration of a session with its processes
// overlaid.
type OrchestrationView struct {
	OstcID   string `json:"ostcId"`
	OstcHash string `json:"ostcHash"`
	XRC729   string `json:"xrc729"`
	Graph    Graph  `json:"graph"`
}

func (c *Console) handleOrchestration(ctx context.Context, w http.ResponseWriter, r *http.Request, root joinstore.Root) {
	meta, err := c.cfg.Store.SessionMeta(ctx, root)
	if err != nil {
		serverError(w, err)
		return
	}
	procs, err := c.cfg.Store.Processes(ctx, root)
	if err != nil {
		serverError(w, err)
		return
	}
	if c.cfg.Source == nil {
		writeJSON(w, http.StatusNotFound, problem{Error: "this replica serves no orchestrations"})
		return
	}
	o, err := c.cfg.Source.Orchestration(ctx, meta.XRC729, meta.OstcID, common.HexToHash(meta.OstcHash))
	if err != nil {
		writeJSON(w, http.StatusNotFound, problem{Error: fmt.Sprintf("orchestration %s of registry %s (hash %s): %v", meta.OstcID, meta.XRC729, meta.OstcHash, err)})
		return
	}
	writeJSON(w, http.StatusOK, OrchestrationView{OstcID: o.ID, OstcHash: o.Hash.Hex(), XRC729: meta.XRC729, Graph: OrchestrationGraph(o, procs)})
}

// handleTimeline answers the timeline as JSON (an array), or as NDJSON
// with format=ndjson; download=1 makes it a file download.
func (c *Console) handleTimeline(ctx context.Context, w http.ResponseWriter, r *http.Request, root joinstore.Root) {
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "ndjson" {
		badRequest("query format %q: want json or ndjson", format).write(w)
		return
	}
	meta, procs, history, err := c.read(ctx, root)
	if err != nil {
		serverError(w, err)
		return
	}
	entries := Timeline(meta, procs, history, c.hub.events(root))
	if entries == nil {
		entries = []Entry{}
	}
	if r.URL.Query().Get("download") != "" {
		ext := "json"
		if format == "ndjson" {
			ext = "ndjson"
		}
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="xgr-session-%s-%d-timeline.%s"`, root.Owner, root.RootPid, ext))
	}
	if format != "ndjson" {
		writeJSON(w, http.StatusOK, entries)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	for _, e := range entries {
		enc.Encode(e)
	}
}

// ClientConfig tells the page what this replica offers.
type ClientConfig struct {
	// Actions is direct, permit or off.
	Actions string `json:"actions"`
	// ChainID is the chain permits are signed for (0: none).
	ChainID uint64 `json:"chainId"`
	// Index is true when the replica follows a chain.
	Index bool `json:"index"`
	// Statuses, Outcomes and SortKeys are the list's filter and sort
	// options.
	Statuses []string `json:"statuses"`
	Outcomes []string `json:"outcomes"`
	SortKeys []string `json:"sortKeys"`
}

func (c *Console) handleConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, ClientConfig{Actions: c.actionMode(), ChainID: c.cfg.ChainID, Index: c.cfg.Index != nil,
		Statuses: Statuses, Outcomes: Outcomes, SortKeys: SortKeys})
}
