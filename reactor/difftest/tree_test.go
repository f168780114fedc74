package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// paths names every process of a session by its line of descent rather
// than by its pid, which depends on the order claims reserved iters in:
// the start process is its step id, a child is its parent's path, "/",
// its step id and, for the second and later child of one parent running
// the same step, "#n" (children of one commit, in iter order, which is
// their order in the branch). The result maps pid to path.
func paths(procs []reactor.ProcessSummary) map[string]string {
	byParent := map[string][]reactor.ProcessSummary{}
	for _, p := range procs {
		byParent[p.ParentPid] = append(byParent[p.ParentPid], p)
	}
	out := make(map[string]string, len(procs))
	var walk func(parent, prefix string)
	walk = func(parent, prefix string) {
		kids := byParent[parent]
		sort.Slice(kids, func(i, j int) bool { return iterOf(kids[i].Pid) < iterOf(kids[j].Pid) })
		seen := map[string]int{}
		for _, k := range kids {
			seen[k.Step]++
			name := k.Step
			if n := seen[k.Step]; n > 1 {
				name += "#" + strconv.Itoa(n)
			}
			out[k.Pid] = prefix + name
			walk(k.Pid, prefix+name+"/")
		}
	}
	walk("", "")
	for _, p := range procs {
		if _, ok := out[p.Pid]; !ok {
			out[p.Pid] = "?orphan-" + p.Pid // a parent without a record
		}
	}
	return out
}

func iterOf(pid string) int64 {
	_, it, _ := joinstore.ParsePid(pid)
	return it
}

// treeOf is the final state of a session as both drivers must agree on
// it, one line per process and per join, sorted by path: a process's
// step, status, validity, abort reason, how often it was executed and its
// payload; a join's outcome, k, got set, merged payload and its target
// process's status and reason.
func treeOf(sum reactor.Summary, executed map[string]int) string {
	path := paths(sum.Processes)
	var lines []string
	for _, p := range sum.Processes {
		valid := "-"
		if p.Valid != nil {
			valid = strconv.FormatBool(*p.Valid)
		}
		lines = append(lines, fmt.Sprintf("process %s: %s %s valid=%s ran=%d reason=%q payload=%s",
			path[p.Pid], p.Step, p.Status, valid, executed[p.Pid], p.Reason, canonJSON(p.Payload)))
	}
	for _, j := range sum.Joins {
		pl := "-"
		if j.Payload != nil {
			b, _ := json.Marshal(j.Payload)
			pl = canonJSON(b)
		}
		lines = append(lines, fmt.Sprintf("join    %s: %s %s k=%d got=%v payload=%s target=%s %q",
			path[j.Pid], j.Step, j.Status, j.K, j.Got, pl, j.TargetStatus, j.TargetReason))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// timelineOf is the session machine's account of each process, as both
// drivers must agree on it: per process (by path), the timeline's lines
// about it in their causal order (Event.Seq), without those that depend
// on how a driver claims or on its clock (claimed, recovered, retry, and
// discarded results).
func timelineOf(sum reactor.Summary, events []reactor.Event) string {
	path := paths(sum.Processes)
	byPid := map[string][]string{}
	// execLines are each process's execution lines, kept apart: while a
	// process executes, lines of other processes about it (a late
	// delivery to a join target ignored) fall before or after them as the
	// replicas' timing has it.
	execLines := map[string][]string{}
	reaped := map[string]bool{}
	var last uint64
	for _, e := range events {
		if e.Seq <= last {
			byPid["!"] = append(byPid["!"], fmt.Sprintf("line %q (seq %d) after seq %d", e.Type, e.Seq, last))
		}
		last = e.Seq
		switch e.Type {
		case reactor.EvClaimed, reactor.EvRecovered, reactor.EvRetry, reactor.EvWakeUp:
			continue
		case reactor.EvIgnored:
			// A result discarded for a lost lease is a replica's own
			// affair; and once a killed session's reaping took a join
			// target down, how many of its members still commit (and are
			// ignored there) depends on when each driver reaps.
			if strings.HasPrefix(e.Detail, "lease lost") || reaped[e.Pid] {
				continue
			}
		case reactor.EvKilled:
			reaped[e.Pid] = true
		case reactor.EvExecuting, reactor.EvExecOutcome:
			execLines[e.Pid] = append(execLines[e.Pid], string(e.Type))
			continue
		}
		byPid[e.Pid] = append(byPid[e.Pid], string(e.Type))
	}
	var lines []string
	for pid, types := range byPid {
		p := path[pid]
		if pid == "!" {
			p = "out of order"
		}
		lines = append(lines, fmt.Sprintf("\ntimeline %s: %s", p, strings.Join(types, " ")))
	}
	for pid, types := range execLines {
		lines = append(lines, fmt.Sprintf("\nexecution %s: %s", path[pid], strings.Join(types, " ")))
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// canonJSON re-encodes a JSON value with object keys sorted and numbers
// as written.
func canonJSON(raw []byte) string {
	if len(raw) == 0 {
		return "-"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "!" + string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// diffLines lists the lines only one of two trees has.
func diffLines(replica, runner string) []string {
	a, b := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(replica, "\n") {
		a[l] = true
	}
	for _, l := range strings.Split(runner, "\n") {
		b[l] = true
	}
	var out []string
	for _, l := range strings.Split(replica, "\n") {
		if !b[l] {
			out = append(out, "- replicas: "+l)
		}
	}
	for _, l := range strings.Split(runner, "\n") {
		if !a[l] {
			out = append(out, "+ runner:   "+l)
		}
	}
	return out
}
