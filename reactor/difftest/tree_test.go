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
