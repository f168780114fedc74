package reactor

import (
	"encoding/json"
	"sort"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// ProcessSummary is one process in a session summary.
type ProcessSummary struct {
	Pid         string `json:"pid"`
	ParentPid   string `json:"parentPid"`
	Step        string `json:"step"`
	Status      string `json:"status"`
	Valid       *bool  `json:"valid"`
	JoinGroupID string `json:"joinGroupId"`
	// Reason says why an aborted process aborted (AbortReason).
	Reason string `json:"reason,omitempty"`
	// Payload is resumePlain: the input of a process that has not run, the
	// next payload (input overlaid by output) of one that has; "sealed"
	// for a sealed process (joinstore.Process.Redacted).
	Payload json.RawMessage `json:"payload,omitempty"`
	// Sealed: its step's rule asks for sealed logs (joinstore.Process.Sealed).
	Sealed bool `json:"sealed,omitempty"`
}

// Join statuses (JoinSummary.Status): the outcome of the join itself, read
// from the target's join fields, never from the target process's status.
const (
	// JoinOpen: not decided yet.
	JoinOpen = "open"
	// JoinClosed: satisfied; the merged inbox became the target's payload.
	JoinClosed = "closed"
	// JoinUnfulfillable: the decision found it can never be satisfied and
	// aborted the target; there is no payload.
	JoinUnfulfillable = "unfulfillable"
	// JoinKilled: the target was killed (a kill command, or its own group's
	// join closing with kill) before its join was decided; no payload.
	JoinKilled = "killed"
)

// JoinSummary is one join target in a session summary: the join's outcome
// and, separately, what became of the target process.
type JoinSummary struct {
	Pid  string `json:"pid"`
	Step string `json:"step"`
	// Status is the join's outcome: open, closed, unfulfillable or killed.
	Status string `json:"status"`
	K      int    `json:"k"`
	// Got lists the from steps that delivered, in from order.
	Got []string `json:"got"`
	// Payload is the merged inbox (in from order) of a closed join, nil
	// otherwise. Numbers keep their text (json.Number).
	Payload map[string]any `json:"payload"`
	// TargetStatus is the target process's own status (waiting, running,
	// done, aborted): a closed join's target may still abort in its step.
	TargetStatus string `json:"targetStatus"`
	// TargetReason says why the target process aborted (AbortReason).
	TargetReason string `json:"targetReason,omitempty"`
	// Sealed: the target's step seals its logs; Payload is then nil (a
	// view shows none of its payload values).
	Sealed bool `json:"sealed,omitempty"`
}

// Summary is the final state of a session.
type Summary struct {
	Processes []ProcessSummary `json:"processes"`
	Joins     []JoinSummary    `json:"joins"`
	// Stopped says why the run ended with work left (e.g. a step limit).
	Stopped string `json:"stopped,omitempty"`
	// Outcome is the finished session's outcome (joinstore.OutcomeOf; set
	// by the caller from the session's meta, "" while it is live).
	Outcome joinstore.Outcome `json:"outcome,omitempty"`
}

// Abort reasons the store records in a process's abortReason.
const (
	reasonKilled   = "killed"
	reasonJoinKill = "join-kill"
)

// ReasonHardError is the reason of a process whose step failed with a hard
// error when no error message was recorded for it.
const ReasonHardError = "hard error"

// AbortReason says why the process aborted, or "" when it did not: the
// store's abortReason (a step's hard error message, unfulfillable, killed,
// join-kill, gated), else "killed" when it was killed while running, else a
// hard error of its step (records written before reasons were kept).
func AbortReason(p joinstore.Process) string {
	if p.Status != joinstore.StatusAborted {
		return ""
	}
	switch {
	case p.AbortReason != "":
		return p.AbortReason
	case !p.KilledAt.IsZero():
		return reasonKilled
	}
	return ReasonHardError
}

// JoinStatus is the outcome of a target's join from its join state and
// abortReason alone. A join closes once (DESIGN.md "Decision"): satisfied
// exactly when k expected steps delivered (the inbox never changes after
// the close); otherwise it was closed without a verdict by a kill, or
// aborted by the decision as unfulfillable. Whatever the target process did
// after a satisfied close (ran, failed, was killed) does not change it.
func JoinStatus(s JoinState, abortReason string) string {
	if !s.Closed {
		return JoinOpen
	}
	if len(delivered(s)) >= s.K {
		return JoinClosed
	}
	if abortReason == reasonKilled || abortReason == reasonJoinKill {
		return JoinKilled
	}
	return JoinUnfulfillable
}

// delivered lists the from steps in the inbox, in from order.
func delivered(s JoinState) []string {
	got := []string{}
	for _, f := range s.From {
		if _, ok := s.Inbox[f.Node]; ok {
			got = append(got, f.Node)
		}
	}
	return got
}

// SummarizeJoin is the join summary of a join target's record.
func SummarizeJoin(p joinstore.Process) (JoinSummary, error) {
	st, err := JoinStateOf(p)
	if err != nil {
		return JoinSummary{}, err
	}
	js := JoinSummary{Pid: p.Pid, Step: p.ResumeStep, K: st.K, Got: delivered(st),
		Status: JoinStatus(st, p.AbortReason), TargetStatus: string(p.Status), TargetReason: AbortReason(p), Sealed: p.Sealed}
	if js.Status == JoinClosed && !p.Sealed {
		js.Payload = Merge(st)
	}
	return js, nil
}

// Summarize builds a session summary from process records (any order).
func Summarize(procs []joinstore.Process) (Summary, error) {
	s := Summary{Processes: []ProcessSummary{}, Joins: []JoinSummary{}}
	sorted := append([]joinstore.Process(nil), procs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Iter < sorted[j].Iter })
	for _, p := range sorted {
		ps := ProcessSummary{Pid: p.Pid, ParentPid: p.ParentPid, Step: p.ResumeStep, Status: string(p.Status),
			JoinGroupID: p.JoinGroupID, Reason: AbortReason(p), Payload: p.Redacted().ResumePlain, Sealed: p.Sealed}
		if p.Valid != nil {
			b := *p.Valid
			ps.Valid = &b
		}
		s.Processes = append(s.Processes, ps)
		if p.Join == nil {
			continue
		}
		js, err := SummarizeJoin(p)
		if err != nil {
			return s, err
		}
		s.Joins = append(s.Joins, js)
	}
	return s, nil
}
