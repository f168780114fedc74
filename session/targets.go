package session

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Target is what one control command (kill, pause, resume) acts on: a
// whole session (Iters empty) or some of its processes.
type Target struct {
	RootPid int64
	Iters   []int64
}

// ParseTargets reads the arguments of xgr session kill / pause / resume:
//
//	ROOTPID [ROOTPID…]          whole sessions
//	ROOTPID ROOTPID:ITER…       processes of that one session (each pid in it)
//	ROOTPID:ITER…               processes, of one session or several
//
// Each argument is either a session (a bare root pid) or a process
// (ROOTPID:ITER), never a bare iteration, so "245 244 243" names three
// sessions. A mix other than the second form is refused, as is a session
// or process named twice; the error names the argument and the forms
// allowed.
func ParseTargets(args []string) ([]Target, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("name a session (ROOTPID) or processes (ROOTPID:ITER)")
	}
	var roots []int64
	type pid struct{ root, iter int64 }
	var pids []pid
	for _, a := range args {
		if strings.Contains(a, ":") {
			r, it, err := joinstore.ParsePid(a)
			if err != nil {
				return nil, err
			}
			pids = append(pids, pid{r, it})
			continue
		}
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q: want a session's root pid (a positive number) or a process's pid ROOTPID:ITER", a)
		}
		roots = append(roots, n)
	}
	var out []Target
	switch {
	case len(pids) == 0:
		for _, r := range roots {
			out = append(out, Target{RootPid: r})
		}
	case len(roots) == 0:
		at := map[int64]int{} // root pid → its index in out
		for _, p := range pids {
			i, ok := at[p.root]
			if !ok {
				i, at[p.root] = len(out), len(out)
				out = append(out, Target{RootPid: p.root})
			}
			out[i].Iters = append(out[i].Iters, p.iter)
		}
	case len(roots) == 1 && args[0] == strconv.FormatInt(roots[0], 10):
		t := Target{RootPid: roots[0]}
		for _, p := range pids {
			if p.root != t.RootPid {
				return nil, fmt.Errorf("pid %d:%d is not in session %d: after a ROOTPID name only its processes (ROOTPID:ITER), or name processes alone", p.root, p.iter, t.RootPid)
			}
			t.Iters = append(t.Iters, p.iter)
		}
		out = []Target{t}
	default:
		return nil, fmt.Errorf("%s: name whole sessions (ROOTPID…) or processes (ROOTPID:ITER…), not both; only one ROOTPID may lead its own processes (7 7:3)", strings.Join(args, " "))
	}
	seen := map[string]bool{}
	for _, t := range out {
		keys := []string{strconv.FormatInt(t.RootPid, 10)}
		if len(t.Iters) > 0 {
			keys = keys[:0]
			for _, it := range t.Iters {
				keys = append(keys, fmt.Sprintf("%d:%d", t.RootPid, it))
			}
		}
		for _, k := range keys {
			if seen[k] {
				return nil, fmt.Errorf("%s is named twice", k)
			}
			seen[k] = true
		}
	}
	return out, nil
}
