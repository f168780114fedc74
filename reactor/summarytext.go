package reactor

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// WriteTree writes processes as a tree by parentPid, with an aborted
// process's reason and, on join targets, the join's outcome and details
// (from sum, the summary of procs).
func WriteTree(w io.Writer, procs []joinstore.Process, sum Summary) {
	joins := map[string]JoinSummary{}
	for _, j := range sum.Joins {
		joins[j.Pid] = j
	}
	children := map[string][]joinstore.Process{}
	for _, p := range procs {
		children[p.ParentPid] = append(children[p.ParentPid], p)
	}
	for _, list := range children {
		sort.Slice(list, func(i, j int) bool { return list[i].Iter < list[j].Iter })
	}
	var walk func(parent, indent string)
	walk = func(parent, indent string) {
		list := children[parent]
		for i, p := range list {
			branch, next := "├─ ", "│  "
			if i == len(list)-1 {
				branch, next = "└─ ", "   "
			}
			line := fmt.Sprintf("%s %s %s", p.Pid, p.ResumeStep, p.Status)
			if v := p.Valid; v != nil {
				line += map[bool]string{true: " (valid)", false: " (invalid)"}[*v]
			}
			if p.Paused {
				line += " paused"
			}
			line += bracketed(AbortReason(p))
			if j := p.Join; j != nil {
				expect := make([]string, len(j.From))
				for i, f := range j.From {
					expect[i] = f.Node
				}
				e, _ := json.Marshal(expect)
				line += fmt.Sprintf("  join %s k=%d expect %s inbox %s fail %s", joins[p.Pid].Status, j.K, e, keysOf(j.Inbox), j.Fail)
			}
			fmt.Fprintf(w, "%s%s%s  group %s\n", indent, branch, line, p.JoinGroupID)
			walk(p.Pid, indent+next)
		}
	}
	walk("", "")
}

// bracketed is " [reason]", or "" for no reason.
func bracketed(reason string) string {
	if reason == "" {
		return ""
	}
	return " [" + reason + "]"
}

func keysOf(obj json.RawMessage) string {
	var m map[string]any
	json.Unmarshal(obj, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, " ") + "]"
}

// WriteEvent writes one timeline event, at its time since t0: a JSON object
// (the event and "t", seconds) with asJSON, else a text line.
func WriteEvent(w io.Writer, e Event, t0 time.Time, asJSON bool) {
	if asJSON {
		json.NewEncoder(w).Encode(struct {
			T float64 `json:"t"`
			Event
		}{e.At.Sub(t0).Seconds(), e})
		return
	}
	fmt.Fprintf(w, "%9.3fs  %-13s %-8s %-10s %s\n", e.At.Sub(t0).Seconds(), e.Type, e.Pid, e.Step, e.Detail)
}

// WriteText writes the summary: every process (an aborted one with its
// reason), every join with its outcome and its target's status, why the
// run stopped and the session's outcome.
func (s Summary) WriteText(w io.Writer) {
	fmt.Fprintln(w, "\nprocesses:")
	for _, p := range s.Processes {
		valid := "-"
		if p.Valid != nil {
			valid = map[bool]string{true: "valid", false: "invalid"}[*p.Valid]
		}
		fmt.Fprintf(w, "  %-8s %-12s %-8s %-7s group %-4s parent %s%s\n", p.Pid, p.Step, p.Status, valid, p.JoinGroupID, p.ParentPid, bracketed(p.Reason))
	}
	if len(s.Joins) > 0 {
		fmt.Fprintln(w, "joins:")
	}
	for _, j := range s.Joins {
		payload := ""
		switch {
		case j.Status == JoinClosed && j.Sealed:
			payload = " payload sealed"
		case j.Status == JoinClosed:
			b, _ := json.Marshal(j.Payload)
			payload = " payload " + string(b)
		}
		fmt.Fprintf(w, "  %-8s %-12s %-13s k=%d got [%s]%s; target %s%s\n", j.Pid, j.Step, j.Status, j.K, strings.Join(j.Got, " "), payload, j.TargetStatus, bracketed(j.TargetReason))
	}
	if s.Stopped != "" {
		fmt.Fprintln(w, s.Stopped)
	}
	if s.Outcome != "" {
		fmt.Fprintf(w, "outcome: %s\n", s.Outcome)
	}
}
