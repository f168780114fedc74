package console

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Bounds of the overview's reads: every number it shows says when one of
// them cut it short.
const (
	// OverviewScan caps the sessions the overview counts (newest first,
	// owner by owner).
	OverviewScan = 5000
	// ThroughputWindow is the span steps per second are measured over.
	ThroughputWindow = time.Minute
	// HistoryReads caps the sessions whose history is read for the
	// throughput (those with a step in the window, newest first).
	HistoryReads = 200
	// LeaseReads caps the live sessions whose process records are read
	// for the process leases held.
	LeaseReads = 200
	// DueRoots caps the due sessions read from each shard of the root
	// index, and DueReads those whose due steps are counted.
	DueRoots = 64
	DueReads = 200
)

// OverviewReport is the overview page: the sessions counted by status and
// outcome, the throughput of the last minute, the due queue, the replicas
// at work and Redis's memory.
type OverviewReport struct {
	// Now is the server's time (unix ms).
	Now      int64             `json:"now"`
	Sessions SessionCounts     `json:"sessions"`
	Through  Throughput        `json:"throughput"`
	Due      DueQueue          `json:"due"`
	Replicas []ReplicaLoad     `json:"replicas"`
	Leases   LeaseNote         `json:"leases"`
	Redis    []RedisMemory     `json:"redis"`
	Errors   map[string]string `json:"errors,omitempty"`
}

// SessionCounts counts the scanned sessions.
type SessionCounts struct {
	// Scanned is how many sessions were counted; Capped says the scan
	// stopped at Cap (older sessions were not counted).
	Scanned int  `json:"scanned"`
	Capped  bool `json:"capped"`
	Cap     int  `json:"cap"`
	// ByStatus counts Row.Status (live, finished, killed); ByOutcome the
	// recorded outcomes (sessions without one are not counted there).
	ByStatus  map[string]int `json:"byStatus"`
	ByOutcome map[string]int `json:"byOutcome"`
	// Paused counts sessions paused as a whole.
	Paused int `json:"paused"`
	Owners int `json:"owners"`
}

// Throughput is the committed steps of the last window, from the
// sessions' proc_steps histories.
type Throughput struct {
	WindowSec int     `json:"windowSec"`
	Steps     int     `json:"steps"`
	PerSec    float64 `json:"perSec"`
	// SessionsRead is how many histories were read (sessions with a step
	// in the window); Capped: more had one than HistoryReads.
	SessionsRead int  `json:"sessionsRead"`
	Capped       bool `json:"capped"`
}

// DueQueue is the work due now and not yet claimed.
type DueQueue struct {
	// Sessions due now in the root index (Capped: a shard had more than
	// DueRoots), Steps their processes due now (counted in at most
	// DueReads sessions).
	Sessions int  `json:"sessions"`
	Steps    int  `json:"steps"`
	Capped   bool `json:"capped"`
	// OldestAt is the due time of the oldest due step (unix ms; 0: none)
	// and OldestAgeMs how long it has been waiting.
	OldestAt    int64 `json:"oldestAt,omitempty"`
	OldestAgeMs int64 `json:"oldestAgeMs"`
}

// ReplicaLoad is one replica (a worker name in the histories or in a
// lease): the steps it committed in the window, and the sessions (root
// leases) and process leases it holds now.
type ReplicaLoad struct {
	Name       string `json:"name"`
	Steps      int    `json:"steps"`
	RootLeases int    `json:"rootLeases"`
	ProcLeases int    `json:"procLeases"`
}

// LeaseNote says how the process leases were counted and what is not
// shown.
type LeaseNote struct {
	// LiveRead is how many live sessions' processes were read; Capped: more
	// were live than LeaseReads.
	LiveRead int  `json:"liveRead"`
	Capped   bool `json:"capped"`
	// RootLeases: the root leases (who runs each live session) were read
	// too, for the same sessions.
	RootLeases bool `json:"rootLeases"`
}

// CountSessions tallies rows by status, outcome and pause.
func CountSessions(rows []Row) SessionCounts {
	c := SessionCounts{Scanned: len(rows), ByStatus: map[string]int{}, ByOutcome: map[string]int{}}
	for _, s := range Statuses {
		c.ByStatus[s] = 0
	}
	for _, r := range rows {
		c.ByStatus[r.Status]++
		if r.Outcome != "" {
			c.ByOutcome[r.Outcome]++
		}
		if r.Paused {
			c.Paused++
		}
	}
	return c
}

// StepsSince counts the commits of histories at or after since, in all
// and per worker.
func StepsSince(histories [][]joinstore.HistoryEntry, since time.Time) (total int, byWorker map[string]int) {
	byWorker = map[string]int{}
	from := since.UnixMilli()
	for _, h := range histories {
		for _, e := range h {
			if !e.Commit() {
				continue
			}
			if at, err := strconv.ParseInt(e.At, 10, 64); err == nil && at >= from {
				total++
				byWorker[e.Worker]++
			}
		}
	}
	return total, byWorker
}

// scanRows reads the list rows of owner's sessions (every owner's when
// owner is ""), newest first per owner, at most perOwner of each and limit
// in all; capped says a limit was reached (older sessions were not read).
func (c *Console) scanRows(ctx context.Context, owner string, perOwner, limit int) (rows []Row, owners []string, capped bool, err error) {
	if owners, err = c.cfg.Store.Owners(ctx); err != nil {
		return nil, nil, false, err
	}
	scan := owners
	if owner != "" {
		scan = []string{owner}
	}
	for _, o := range scan {
		n := min(perOwner, limit-len(rows))
		if n <= 0 {
			return rows, owners, true, nil
		}
		list, err := c.cfg.Store.Overviews(ctx, o, n)
		if err != nil {
			return nil, nil, false, err
		}
		if len(list) == n {
			capped = true // the read limit was reached: older sessions may exist
		}
		for _, ov := range list {
			rows = append(rows, RowOf(ov))
		}
	}
	return rows, owners, capped, nil
}

func (c *Console) handleOverview(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := reqCtx(r)
	defer cancel()
	now := c.cfg.Now()
	rep := OverviewReport{Now: now.UnixMilli(), Errors: map[string]string{}}
	rows, owners, capped, err := c.scanRows(ctx, "", MaxScan, OverviewScan)
	if err != nil {
		serverError(w, err)
		return
	}
	rep.Sessions = CountSessions(rows)
	rep.Sessions.Capped, rep.Sessions.Cap, rep.Sessions.Owners = capped, OverviewScan, len(owners)

	// Throughput: the histories of sessions with a step in the window.
	since := now.Add(-ThroughputWindow)
	recent := make([]Row, 0)
	for _, row := range rows {
		if row.UpdatedAt >= since.UnixMilli() {
			recent = append(recent, row)
		}
	}
	sort.Slice(recent, func(i, j int) bool { return recent[i].UpdatedAt > recent[j].UpdatedAt })
	rep.Through = Throughput{WindowSec: int(ThroughputWindow / time.Second), Capped: len(recent) > HistoryReads}
	var histories [][]joinstore.HistoryEntry
	for _, row := range recent[:min(len(recent), HistoryReads)] {
		h, err := c.cfg.Store.History(ctx, joinstore.Root{Owner: row.Owner, RootPid: row.RootPid})
		if err != nil {
			rep.Errors["throughput"] = err.Error()
			break
		}
		histories = append(histories, h)
	}
	rep.Through.SessionsRead = len(histories)
	steps, byWorker := StepsSince(histories, since)
	rep.Through.Steps, rep.Through.PerSec = steps, float64(steps)/ThroughputWindow.Seconds()

	// Root and process leases held now, in the live sessions.
	leases, roots := map[string]int{}, map[string]int{}
	var live []joinstore.Root
	for _, row := range rows {
		if row.Status == "finished" || row.Live == 0 {
			continue
		}
		if rep.Leases.LiveRead == LeaseReads {
			rep.Leases.Capped = true
			break
		}
		rep.Leases.LiveRead++
		live = append(live, joinstore.Root{Owner: row.Owner, RootPid: row.RootPid})
		procs, err := c.cfg.Store.Processes(ctx, joinstore.Root{Owner: row.Owner, RootPid: row.RootPid})
		if err != nil {
			rep.Errors["leases"] = err.Error()
			break
		}
		for _, p := range procs {
			if p.Status == joinstore.StatusRunning && p.Lease != nil && p.Lease.Until.After(now) {
				leases[p.Lease.Holder]++
			}
		}
	}
	if holders, err := c.cfg.Store.RootHolders(ctx, live); err != nil {
		rep.Errors["rootLeases"] = err.Error()
	} else {
		rep.Leases.RootLeases = true
		for _, h := range holders {
			roots[h]++
		}
	}
	rep.Replicas = replicaLoads(byWorker, roots, leases)

	rep.Due = c.dueQueue(ctx, now, rep.Errors)
	rep.Redis = c.redisMemory(ctx, rep.Errors)
	writeJSON(w, http.StatusOK, rep)
}

// replicaLoads merges the steps, root leases and process leases per
// replica, sorted by name.
func replicaLoads(steps, roots, leases map[string]int) []ReplicaLoad {
	names := map[string]bool{}
	for _, m := range []map[string]int{steps, roots, leases} {
		for n := range m {
			names[n] = true
		}
	}
	out := make([]ReplicaLoad, 0, len(names))
	for n := range names {
		name := n
		if name == "" {
			name = "(unnamed)"
		}
		out = append(out, ReplicaLoad{Name: name, Steps: steps[n], RootLeases: roots[n], ProcLeases: leases[n]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// dueQueue reads the sessions due now from the root index and counts
// their due steps and the oldest due time.
func (c *Console) dueQueue(ctx context.Context, now time.Time, errs map[string]string) DueQueue {
	var q DueQueue
	roots, err := c.cfg.Store.RootsDue(ctx, now, DueRoots)
	if err != nil {
		errs["due"] = err.Error()
		return q
	}
	// RootsDue reads at most DueRoots per shard: that many in all means a
	// shard may have been cut.
	q.Sessions, q.Capped = len(roots), len(roots) >= DueRoots
	for i, r := range roots {
		if i == DueReads {
			q.Capped = true
			break
		}
		iters, err := c.cfg.Store.DueIters(ctx, r, now, 10000)
		if err != nil {
			errs["due"] = err.Error()
			break
		}
		q.Steps += len(iters)
		if len(iters) == 0 {
			continue
		}
		at, ok, err := c.cfg.Store.NextDue(ctx, r)
		if err != nil {
			errs["due"] = err.Error()
			break
		}
		if ok && (q.OldestAt == 0 || at.UnixMilli() < q.OldestAt) {
			q.OldestAt = at.UnixMilli()
		}
	}
	if q.OldestAt > 0 {
		q.OldestAgeMs = max(0, now.UnixMilli()-q.OldestAt)
	}
	return q
}
