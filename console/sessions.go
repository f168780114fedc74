package console

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Row is one session in the sessions list.
type Row struct {
	Owner   string `json:"owner"`
	RootPid int64  `json:"rootPid"`
	// Status is live, finished, or killed (a kill was ordered; live
	// processes may still be ending; a cap's or a cancelSession rule's
	// kill shows in Outcome instead).
	Status    string `json:"status"`
	Live      int64  `json:"live"`
	StartStep string `json:"startStep"`
	OstcID    string `json:"ostcId"`
	OstcHash  string `json:"ostcHash"`
	XRC729    string `json:"xrc729"`
	// CreatedAt and UpdatedAt are unix milliseconds; UpdatedAt is the
	// latest of creation, the last committed step, the kill and the end.
	CreatedAt int64 `json:"createdAt"`
	UpdatedAt int64 `json:"updatedAt"`
	// StartKey names the start that created the session (its idempotency
	// key, or "permit:<digest>" for a gateway start).
	StartKey string `json:"startKey,omitempty"`
	// Paused: the whole session was paused (its new processes are created
	// paused).
	Paused bool `json:"paused,omitempty"`
	// Outcome is the finished session's outcome (joinstore.OutcomeOf:
	// killed, cancelled, budget, failed, unfulfillable, invalid or ok; empty while
	// it is live).
	Outcome string `json:"outcome,omitempty"`
}

// RowOf is the list row of a session overview. A session whose meta has a
// field that does not parse (Overview.Bad) is listed with the fields that
// do, and no outcome.
func RowOf(o joinstore.Overview) Row {
	m := o.Meta
	r := Row{Owner: o.Root.Owner, RootPid: o.Root.RootPid, Status: string(m.Status), Live: m.Live, StartStep: m.StartStep,
		OstcID: m.OstcID, OstcHash: m.OstcHash, XRC729: m.XRC729, CreatedAt: unixMs(m.CreatedAt),
		StartKey: m.StartKey, Paused: m.Paused}
	if o.Bad == nil {
		r.Outcome = string(joinstore.OutcomeOf(m))
	}
	if r.CreatedAt == 0 {
		r.CreatedAt = o.CreatedAt.UnixMilli()
	}
	if !m.KilledAt.IsZero() && (m.KillKind == "" || m.KillKind == joinstore.KillKindKill) {
		// An ordered kill; a cap or a cancel shows in the outcome.
		r.Status = "killed"
	}
	r.UpdatedAt = max(r.CreatedAt, o.LastStep.UnixMilli(), unixMs(m.FinishedAt), unixMs(m.KilledAt))
	return r
}

// unixMs is t in unix milliseconds, 0 for the zero time (unset).
func unixMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Query is a sessions list request: filters, sort and page.
type Query struct {
	// Owner filters by owner ("" = every owner).
	Owner string
	// Status filters by Row.Status ("" = any); Outcome by Row.Outcome.
	Status, Outcome string
	// Search, when set, keeps the session whose root pid it is (a number,
	// or a pid "ROOT:ITER") and the sessions whose start key (idempotency
	// key) contains it.
	Search string
	// Ostc keeps the sessions whose orchestration id contains it (case
	// insensitive).
	Ostc string
	// From and To keep the sessions created in [From, To] (unix ms; 0 =
	// open).
	From, To int64
	// Sort is a key of SortKeys; Desc reverses it.
	Sort   string
	Desc   bool
	Offset int
	Limit  int
}

// SortKeys are the columns the list sorts by.
var SortKeys = []string{"created", "updated", "rootPid", "owner", "status", "live", "ostcId", "startStep"}

// Statuses are the session statuses the list filters by.
var Statuses = []string{"live", "finished", "killed"}

// Outcomes are the outcomes the list filters by (joinstore.Outcomes).
var Outcomes = func() []string {
	out := make([]string, len(joinstore.Outcomes))
	for i, o := range joinstore.Outcomes {
		out[i] = string(o)
	}
	return out
}()

// MaxLimit is the largest page; MaxScan how many of each owner's newest
// sessions a list request reads; MaxSearch the longest search text.
const (
	MaxLimit = 500
	MaxScan  = 10000
	// MaxListScan caps the sessions of every owner a list request reads.
	MaxListScan = 50000
	MaxSearch   = 200
)

// ParseQuery reads a list request's query string: owner, status, q (a
// session id or a start key), ostc (an orchestration id), from and to
// (creation times, unix ms or RFC 3339), sort (default created), order
// (asc or desc, default desc), offset and limit (default 50).
func ParseQuery(get func(string) string) (Query, *problem) {
	q := Query{Owner: joinstore.NormalizeOwner(get("owner")), Status: get("status"), Outcome: get("outcome"), Sort: get("sort"), Desc: true, Limit: 50,
		Search: strings.TrimSpace(get("q")), Ostc: strings.TrimSpace(get("ostc"))}
	for _, f := range []struct{ name, v string }{{"q", q.Search}, {"ostc", q.Ostc}} {
		if len(f.v) > MaxSearch {
			return q, badRequest("query %s: %d bytes, want at most %d", f.name, len(f.v), MaxSearch)
		}
	}
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"from", &q.From}, {"to", &q.To}} {
		v := get(f.name)
		if v == "" {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			*f.dst = n
		} else if t, err := time.Parse(time.RFC3339, v); err == nil {
			*f.dst = t.UnixMilli()
		} else {
			return q, badRequest("query %s %q: want a time as unix milliseconds or RFC 3339 (2006-01-02T15:04:05Z)", f.name, v)
		}
	}
	if q.From > 0 && q.To > 0 && q.To < q.From {
		return q, badRequest("query to %d is before from %d: want from <= to", q.To, q.From)
	}
	if q.Owner != "" {
		if err := joinstore.CheckOwner(q.Owner); err != nil {
			return q, badRequest("query owner: %v", err)
		}
	}
	if q.Status != "" && !contains(Statuses, q.Status) {
		return q, badRequest("query status %q: want one of %s (or none)", q.Status, strings.Join(Statuses, ", "))
	}
	if q.Outcome != "" {
		if _, err := joinstore.ParseOutcome(q.Outcome); err != nil || q.Outcome != strings.ToLower(q.Outcome) {
			return q, badRequest("query outcome %q: want one of %s (or none)", q.Outcome, strings.Join(Outcomes, ", "))
		}
	}
	if q.Sort == "" {
		q.Sort = "created"
	}
	if !contains(SortKeys, q.Sort) {
		return q, badRequest("query sort %q: want one of %s", q.Sort, strings.Join(SortKeys, ", "))
	}
	switch get("order") {
	case "", "desc":
	case "asc":
		q.Desc = false
	default:
		return q, badRequest("query order %q: want asc or desc", get("order"))
	}
	for _, f := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"offset", &q.Offset, 0, 1 << 30}, {"limit", &q.Limit, 1, MaxLimit}} {
		if v := get(f.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < f.min || n > f.max {
				return q, badRequest("query %s %q: want a whole number from %d to %d", f.name, v, f.min, f.max)
			}
			*f.dst = n
		}
	}
	return q, nil
}

// Page filters rows (Query.Keeps), sorts them (ties by owner and root pid, in
// the same direction) and cuts the page; total counts the filtered rows.
func Page(rows []Row, q Query) (page []Row, total int) {
	kept := rows[:0:0]
	for _, r := range rows {
		if q.Keeps(r) {
			kept = append(kept, r)
		}
	}
	less := func(a, b Row) int {
		var c int
		switch q.Sort {
		case "created":
			c = cmpInt(a.CreatedAt, b.CreatedAt)
		case "rootPid":
			c = cmpInt(a.RootPid, b.RootPid)
		case "updated":
			c = cmpInt(a.UpdatedAt, b.UpdatedAt)
		case "owner":
			c = strings.Compare(a.Owner, b.Owner)
		case "status":
			c = strings.Compare(a.Status, b.Status)
		case "live":
			c = cmpInt(a.Live, b.Live)
		case "ostcId":
			c = strings.Compare(a.OstcID, b.OstcID)
		case "startStep":
			c = strings.Compare(a.StartStep, b.StartStep)
		}
		if c == 0 {
			c = strings.Compare(a.Owner, b.Owner)
		}
		if c == 0 {
			c = cmpInt(a.RootPid, b.RootPid)
		}
		return c
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if q.Desc {
			return less(kept[j], kept[i]) < 0
		}
		return less(kept[i], kept[j]) < 0
	})
	total = len(kept)
	if q.Offset >= total {
		return []Row{}, total
	}
	return kept[q.Offset:min(total, q.Offset+q.Limit)], total
}

// Keeps reports whether the query's filters keep row r.
func (q Query) Keeps(r Row) bool {
	switch {
	case q.Status != "" && r.Status != q.Status,
		q.Outcome != "" && r.Outcome != q.Outcome,
		q.From > 0 && r.CreatedAt < q.From,
		q.To > 0 && r.CreatedAt > q.To,
		q.Ostc != "" && !strings.Contains(strings.ToLower(r.OstcID), strings.ToLower(q.Ostc)):
		return false
	case q.Search == "":
		return true
	}
	id, _, _ := strings.Cut(q.Search, ":")
	if n, err := strconv.ParseInt(id, 10, 64); err == nil && n == r.RootPid {
		return true
	}
	return r.StartKey != "" && strings.Contains(r.StartKey, q.Search)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// List is the sessions list answer.
type List struct {
	Rows  []Row `json:"rows"`
	Total int   `json:"total"`
	// Owners are the owners that have sessions (for the owner filter).
	Owners []string `json:"owners"`
	// Scanned is how many sessions were read and filtered; Capped says a
	// read limit (MaxScan per owner, MaxListScan in all) was reached, so
	// older sessions were not searched.
	Scanned int  `json:"scanned"`
	Capped  bool `json:"capped"`
}

func (c *Console) handleSessions(w http.ResponseWriter, r *http.Request) {
	q, p := ParseQuery(r.URL.Query().Get)
	if p != nil {
		p.write(w)
		return
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	rows, owners, capped, err := c.scanRows(ctx, q.Owner, MaxScan, MaxListScan)
	if err != nil {
		serverError(w, err)
		return
	}
	page, total := Page(rows, q)
	writeJSON(w, http.StatusOK, List{Rows: page, Total: total, Owners: owners, Scanned: len(rows), Capped: capped})
}

func (c *Console) handleOwners(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := reqCtx(r)
	defer cancel()
	owners, err := c.cfg.Store.Owners(ctx)
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, owners)
}
