package console

import (
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Entry is one line of a session's timeline.
type Entry struct {
	// At is the time in unix milliseconds.
	At     int64  `json:"at"`
	Type   string `json:"type"`
	Pid    string `json:"pid,omitempty"`
	Step   string `json:"step,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Source is "redis" (derived from the session's records, as every
	// replica sees it) or "replica" (seen by this replica only).
	Source string `json:"source"`
	// Worker is the replica that ran the step (executed and aborted
	// commits: the proc_steps entry's worker).
	Worker string `json:"worker,omitempty"`
	// DurationMs is how long the step ran, from its claim to its commit;
	// only known when this replica saw the claim (Redis keeps no claim
	// time), absent otherwise.
	DurationMs *int64 `json:"durationMs,omitempty"`
	// Output is the payload the step handed to the processes it spawned
	// (the payload of its first child that is not a join target, as
	// stored, JSON text: its input with the step's output laid over it; a
	// later wake of the child merges into it), at most OutputCap bytes;
	// OutputCut says it was cut.
	Output    string `json:"output,omitempty"`
	OutputCut bool   `json:"outputCut,omitempty"`
	// Gas is a committed step's gas: its validation gas and its
	// transactions' gas used (the proc_steps entry's), counted against the
	// session's budget.
	Gas uint64 `json:"gas,omitempty"`
}

// OutputCap caps the output text a timeline entry carries.
const OutputCap = 4096

// Sources of timeline entries.
const (
	SourceRedis   = "redis"
	SourceReplica = "replica"
)

// replicaOnly are the event types the session's records do not keep: the
// timeline takes them from this replica's own events.
var replicaOnly = map[reactor.EventType]bool{reactor.EvClaimed: true, reactor.EvIgnored: true, reactor.EvCapped: true, reactor.EvGated: true, reactor.EvPromoted: true, reactor.EvRetry: true, reactor.EvRecovered: true}

// Timeline merges what the session's records say happened (meta, process
// records, proc_steps history) with the events this replica saw that the
// records do not keep (claims, discarded results, caps), oldest first:
// started, claimed, executed (valid or invalid), aborted, spawned, woken,
// wakeup, join_closed, join_aborted, join_killed, killed, session_killed,
// finished.
func Timeline(meta joinstore.SessionMeta, procs []joinstore.Process, history []joinstore.HistoryEntry, local []reactor.Event) []Entry {
	var out []Entry
	addMs := func(n int64, typ, pid, step, detail string) {
		if n > 0 {
			out = append(out, Entry{At: n, Type: typ, Pid: pid, Step: step, Detail: detail, Source: SourceRedis})
		}
	}
	add := func(at string, typ, pid, step, detail string) {
		if n, err := strconv.ParseInt(at, 10, 64); err == nil {
			addMs(n, typ, pid, step, detail)
		}
	}
	addTime := func(at time.Time, typ, pid, step, detail string) {
		if !at.IsZero() {
			addMs(at.UnixMilli(), typ, pid, step, detail)
		}
	}
	stepOf := make(map[string]string, len(procs))
	plainOf := make(map[string]string, len(procs))
	target := make(map[string]bool, len(procs))
	sealed := make(map[string]bool, len(procs))
	for _, p := range procs {
		stepOf[p.Pid] = p.ResumeStep
		plainOf[p.Pid] = string(p.Redacted().ResumePlain)
		target[p.Pid] = p.Join != nil
		sealed[p.Pid] = p.Sealed
	}
	// This replica's claims, per process, oldest first: a commit ran from
	// the last claim before it.
	claims := map[string][]int64{}
	for _, e := range local {
		if e.Type == reactor.EvClaimed {
			claims[e.Pid] = append(claims[e.Pid], e.At.UnixMilli())
		}
	}
	lastCommit := map[string]int64{}
	addTime(meta.CreatedAt, "started", joinstore.Root{Owner: meta.Owner, RootPid: meta.RootPid}.Pid(1), meta.StartStep, "ostc "+meta.OstcID)
	for _, h := range history {
		switch h.Event {
		case joinstore.EventWoken:
			add(h.At, "woken", h.Pid, h.Step, "by "+h.By)
		case joinstore.EventWakeUp:
			add(h.At, "wakeup", h.Pid, h.Step, h.Outcome)
		case joinstore.EventCommit:
			before := len(out)
			if h.Status == "aborted" {
				add(h.At, "aborted", h.Pid, h.Step, h.AbortReason)
			} else {
				add(h.At, "executed", h.Pid, h.Step, map[string]string{"1": "valid", "0": "invalid"}[h.Valid])
			}
			if len(out) > before {
				e := &out[before]
				e.Worker = h.Worker
				e.Gas, _ = strconv.ParseUint(h.Gas, 10, 64)
				if claimed, ok := claimBefore(claims[h.Pid], lastCommit[h.Pid], e.At); ok {
					d := e.At - claimed
					e.DurationMs = &d
				}
				lastCommit[h.Pid] = e.At
				// What a sealed step handed on is its next payload: "sealed".
				if c := handedTo(h.Children, target); c != "" && sealed[h.Pid] {
					e.Output = string(joinstore.SealedValue)
				} else if c != "" {
					e.Output, e.OutputCut = capText(plainOf[c], OutputCap)
				}
			}
			for _, c := range h.Children {
				add(h.At, "spawned", c, stepOf[c], "by "+h.Pid)
			}
		}
	}
	claimed := map[string]bool{}
	for _, e := range local {
		if replicaOnly[e.Type] {
			out = append(out, Entry{At: e.At.UnixMilli(), Type: string(e.Type), Pid: e.Pid, Step: e.Step, Detail: e.Detail, Source: SourceReplica})
			claimed[e.Pid] = claimed[e.Pid] || e.Type == "claimed"
		}
	}
	for _, p := range procs {
		pid, step := p.Pid, p.ResumeStep
		if (p.Status == joinstore.StatusRunning || p.Status == joinstore.StatusExecuting) && !claimed[pid] {
			holder, until := "", ""
			if l := p.Lease; l != nil {
				holder = l.Holder
				if !l.Until.IsZero() {
					until = strconv.FormatInt(l.Until.UnixMilli(), 10)
				}
			}
			addTime(p.UpdatedAt, "claimed", pid, step, "by "+holder+", lease until "+until)
		}
		if p.Join != nil && !p.Join.ClosedAt.IsZero() {
			if js, err := reactor.SummarizeJoin(p); err == nil {
				typ := map[string]string{reactor.JoinClosed: "join_closed", reactor.JoinUnfulfillable: "join_aborted", reactor.JoinKilled: "join_killed"}[js.Status]
				if typ != "" {
					addTime(p.Join.ClosedAt, typ, pid, step, "got "+strings.Join(js.Got, ",")+" of k="+strconv.Itoa(js.K))
				}
			}
		}
		addTime(p.KilledAt, "killed", pid, step, reactor.AbortReason(p))
	}
	addTime(meta.KilledAt, "session_killed", "", "", meta.KillReason)
	addTime(meta.FinishedAt, "finished", "", "", "")
	// Within one millisecond: the start, then claims, then what executions did.
	rank := func(e Entry) int {
		switch e.Type {
		case "started":
			return 0
		case "claimed", "woken":
			return 1
		case "finished":
			return 3
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return rank(out[i]) < rank(out[j])
	})
	return out
}

// claimBefore is the last claim in (after, at]: the claim the commit at
// "at" ran under.
func claimBefore(claims []int64, after, at int64) (int64, bool) {
	var got int64
	ok := false
	for _, c := range claims {
		if c > after && c <= at {
			got, ok = c, true
		}
	}
	return got, ok
}

// handedTo is the child whose payload shows what a step handed on: the
// first that is not a join target (a target's payload becomes the join's
// merge), else the first.
func handedTo(children []string, target map[string]bool) string {
	for _, c := range children {
		if !target[c] {
			return c
		}
	}
	if len(children) > 0 {
		return children[0]
	}
	return ""
}

// capText cuts s to at most n bytes (on a rune boundary).
func capText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
