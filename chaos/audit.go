package chaos

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Kinds of findings. Each one is an invariant the chaos suite holds xgr to.
const (
	// KindLost: a start was acknowledged but the session is not in Redis,
	// or two idempotency keys ended up naming one session.
	KindLost = "session-lost"
	// KindExtraSession: Redis holds a session of the owner that no
	// acknowledged start names (a retried start created a second one).
	KindExtraSession = "extra-session"
	// KindNotIndexed: a session exists but its owner's session index
	// (xgr session list) does not name it.
	KindNotIndexed = "not-indexed"
	// KindNotFinished: the session's status is not "finished".
	KindNotFinished = "not-finished"
	// KindLiveProcess: a process is still waiting or running (stuck).
	KindLiveProcess = "live-process"
	// KindLiveCount: the session's live counter disagrees with its records.
	KindLiveCount = "live-count"
	// KindDoubleCommit: one pid has two commit entries in proc_steps.
	KindDoubleCommit = "double-commit"
	// KindTargetCommittedTwice: a join target has two commit entries.
	KindTargetCommittedTwice = "target-committed-twice"
	// KindChildTwice: two commit entries (or one, twice) list the same child.
	KindChildTwice = "child-created-twice"
	// KindTargetTwice: one parent has more than one join target.
	KindTargetTwice = "target-created-twice"
	// KindOrphan: a process record that no commit created.
	KindOrphan = "orphan-process"
	// KindMissing: a commit names a child, or proc_steps a pid, without a
	// process record.
	KindMissing = "missing-record"
	// KindParent: a child's parentPid is not the pid whose commit created it.
	KindParent = "parent-mismatch"
	// KindStatus: a committed process's record disagrees with its commit.
	KindStatus = "status-mismatch"
	// KindTargetEarly: a join target committed although its join was not
	// closed with k deliveries.
	KindTargetEarly = "target-ran-early"
	// KindNoTTL: a key of a finished session has no time to live (it
	// would stay in Redis forever).
	KindNoTTL = "record-without-ttl"
)

// Finding is one broken invariant.
type Finding struct {
	Kind    string
	Session string
	Detail  string
}

func (f Finding) String() string { return f.Kind + " " + f.Session + ": " + f.Detail }

// SessionAudit is what the audit found in one session.
type SessionAudit struct {
	Session   string
	Finished  bool
	Commits   int
	Processes int
	// LiveProcesses are the pids still waiting or running.
	LiveProcesses []string
	// FinishedAt is the meta's finishedAt (zero when not finished).
	FinishedAt time.Time
	Findings   []Finding
}

// AuditSession checks one session from what Redis holds: its meta hash,
// every process record (joinstore.Store.Processes) and its proc_steps
// history (joinstore.Store.History). It knows nothing about how the
// session ran; each finding names the pids involved.
//
// Invariants: the session finished with no live process and a live counter
// of 0; no pid has two commit entries; every child pid is listed by exactly
// one commit entry and has a record whose parentPid is that commit's pid;
// every process record except the root process (iter 1) was created by a
// commit; no parent has two join targets; a committed process's record has
// the commit's status; a committed join target's join was closed with at
// least k of its expected steps in the inbox.
func AuditSession(session string, meta joinstore.SessionMeta, procs []joinstore.Process, hist []joinstore.HistoryEntry) SessionAudit {
	a := SessionAudit{Session: session, Processes: len(procs)}
	add := func(kind, format string, args ...any) {
		a.Findings = append(a.Findings, Finding{Kind: kind, Session: session, Detail: fmt.Sprintf(format, args...)})
	}
	a.Finished = meta.Status == joinstore.SessionFinished
	if a.Finished {
		a.FinishedAt = meta.FinishedAt
	}
	if !a.Finished {
		add(KindNotFinished, "status %q, live counter %d", meta.Status, meta.Live)
	}

	byPid := map[string]*joinstore.Process{}
	var pids []string
	for i := range procs {
		p := &procs[i]
		byPid[p.Pid] = p
		pids = append(pids, p.Pid)
		if p.Status.Live() {
			a.LiveProcesses = append(a.LiveProcesses, p.Pid)
			worker := ""
			if p.Lease != nil {
				worker = p.Lease.Holder
			}
			add(KindLiveProcess, "%s (step %s) is %s, paused %v, nextWakeAt %s, worker %q", p.Pid, p.ResumeStep, p.Status, p.Paused,
				p.NextWakeAt.UTC().Format(joinstore.TimeFormat), worker)
		}
	}
	sortPids(pids)
	if live := len(a.LiveProcesses); meta.Live != int64(live) {
		add(KindLiveCount, "meta live is %d, %d process records are live", meta.Live, live)
	}
	rootPid := ""
	if meta.RootPid != 0 {
		rootPid = joinstore.Root{RootPid: meta.RootPid}.Pid(1)
		if byPid[rootPid] == nil {
			add(KindMissing, "root process %s has no record", rootPid)
		}
	}

	commits := map[string][]joinstore.HistoryEntry{}
	var committed []string
	createdBy := map[string][]string{}
	for _, e := range hist {
		if !e.Commit() {
			continue
		}
		a.Commits++
		if len(commits[e.Pid]) == 0 {
			committed = append(committed, e.Pid)
		}
		commits[e.Pid] = append(commits[e.Pid], e)
		for _, c := range e.Children {
			createdBy[c] = append(createdBy[c], e.Pid)
		}
	}
	sortPids(committed)
	for _, pid := range committed {
		es := commits[pid]
		rec := byPid[pid]
		isTarget := rec != nil && rec.Join != nil
		if len(es) > 1 {
			kind := KindDoubleCommit
			if isTarget {
				kind = KindTargetCommittedTwice
			}
			var seen []string
			for _, e := range es {
				seen = append(seen, fmt.Sprintf("%s by %s at %s (children %s)", e.Status, e.Worker, e.At, strings.Join(e.Children, ",")))
			}
			add(kind, "%s (step %s) committed %d times: %s", pid, es[0].Step, len(es), strings.Join(seen, "; "))
		}
		if rec == nil {
			add(KindMissing, "%s is committed in proc_steps but has no record", pid)
			continue
		}
		if last := es[len(es)-1]; string(rec.Status) != last.Status {
			add(KindStatus, "%s: record status %q, last commit %q", pid, rec.Status, last.Status)
		}
		if isTarget {
			if problem := joinNotSatisfied(rec.Join); problem != "" {
				add(KindTargetEarly, "join target %s (step %s) committed, but %s", pid, rec.ResumeStep, problem)
			}
		}
	}

	var children []string
	for c := range createdBy {
		children = append(children, c)
	}
	sortPids(children)
	for _, c := range children {
		parents := createdBy[c]
		if len(parents) > 1 {
			add(KindChildTwice, "%s is listed as a child by %d commit entries (of %s)", c, len(parents), strings.Join(parents, ", "))
		}
		rec := byPid[c]
		if rec == nil {
			add(KindMissing, "%s, created by %s, has no record", c, parents[0])
			continue
		}
		if rec.ParentPid != parents[0] {
			add(KindParent, "%s has parentPid %q but was created by %s's commit", c, rec.ParentPid, parents[0])
		}
	}

	targets := map[string][]string{}
	for _, pid := range pids {
		rec := byPid[pid]
		if pid != rootPid && len(createdBy[pid]) == 0 {
			add(KindOrphan, "%s (step %s, parent %q, status %s) was created by no commit", pid, rec.ResumeStep, rec.ParentPid, rec.Status)
		}
		if rec.Join != nil {
			targets[rec.ParentPid] = append(targets[rec.ParentPid], pid)
		}
	}
	var parents []string
	for p := range targets {
		parents = append(parents, p)
	}
	sortPids(parents)
	for _, p := range parents {
		if ts := targets[p]; len(ts) > 1 {
			add(KindTargetTwice, "parent %s has %d join targets: %s", p, len(ts), strings.Join(ts, ", "))
		}
	}
	return a
}

// joinNotSatisfied says why a join target's join does not show it closed
// with k expected deliveries ("" when it does).
func joinNotSatisfied(j *joinstore.JoinTarget) string {
	if !j.Closed {
		return "its join is not closed"
	}
	var inbox map[string]json.RawMessage
	if err := json.Unmarshal(j.Inbox, &inbox); err != nil {
		return fmt.Sprintf("its inbox %q is not a JSON object", j.Inbox)
	}
	got := 0
	var expect []string
	for _, f := range j.From {
		expect = append(expect, f.Node)
		if _, ok := inbox[f.Node]; ok {
			got++
		}
	}
	if got < j.K {
		return fmt.Sprintf("its inbox holds %d of the k=%d expected steps %v", got, j.K, expect)
	}
	return ""
}

// sortPids orders "<root>:<iter>" pids numerically.
func sortPids(pids []string) {
	sort.Slice(pids, func(i, j int) bool {
		ri, ii, ei := joinstore.ParsePid(pids[i])
		rj, ij, ej := joinstore.ParsePid(pids[j])
		if ei != nil || ej != nil {
			return pids[i] < pids[j]
		}
		if ri != rj {
			return ri < rj
		}
		return ii < ij
	})
}

// Kill is one kill -9 of a replica: its name, when, and the sessions whose
// root lease it held just before.
type Kill struct {
	Victim string
	At     time.Time
	Held   []joinstore.Root
}

// Takeover measures how long the sessions a killed replica held waited:
// for each, the time from the kill to its first commit by another replica
// (proc_steps "at" and "worker"), or to its finish when it finished without
// another commit (its last processes were aborted by recovery). Sessions
// that finished before the kill are skipped; sessions with neither are
// returned in missing. perKill is the longest wait: when every session the
// replica held had moved on.
func Takeover(k Kill, hist map[joinstore.Root][]joinstore.HistoryEntry, finishedAt map[joinstore.Root]time.Time) (perSession []time.Duration, perKill time.Duration, missing []joinstore.Root) {
	at := k.At.UnixMilli()
	for _, r := range k.Held {
		if f, ok := finishedAt[r]; ok && f.UnixMilli() < at {
			continue
		}
		found := false
		var d time.Duration
		for _, e := range hist[r] {
			if !e.Commit() || e.Worker == k.Victim {
				continue
			}
			ms, err := strconv.ParseInt(e.At, 10, 64)
			if err != nil || ms < at {
				continue
			}
			d, found = time.Duration(ms-at)*time.Millisecond, true
			break
		}
		if !found {
			if f, ok := finishedAt[r]; ok {
				d, found = f.Sub(k.At), true
			}
		}
		if !found {
			missing = append(missing, r)
			continue
		}
		perSession = append(perSession, d)
		perKill = max(perKill, d)
	}
	return perSession, perKill, missing
}

// Percentile is the nearest-rank percentile p (0–100) of ds (0 when empty).
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}
