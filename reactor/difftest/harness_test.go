package difftest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// kase is one comparison: an orchestration (Steps[0] starts), its scripted
// outcomes, and whether lists of outcomes are played per line of descent
// (threadExec) or per execution in the session (reactor.Scripted).
type kase struct {
	name     string
	orch     *orch
	outcomes outcomes
	threaded bool
}

// verdict is what one comparison found.
type verdict struct {
	replicas, runner run
	// order is the replicas' commit order (paths), which the Runner was
	// made to follow.
	order []string
	// problems say where the Runner could not follow (the drivers had
	// diverged before) or why it stopped.
	problems []string
	// diff lists the lines only one tree has.
	diff []string
	// overlap, when not "", says why the replicas' run is one no
	// sequential driver can reproduce: two executions overlapped (a
	// join-creating step bypasses the window) and one's commit killed
	// the other's group or session while it ran.
	overlap string
	// breach, when not "", says how the replicas broke the session's
	// window of 1, which fails the case whatever the trees.
	breach string
}

func (v verdict) differs() bool { return len(v.problems) > 0 || len(v.diff) > 0 }

// fails: the drivers disagree where the comparison is defined.
func (v verdict) fails() bool { return v.breach != "" || v.differs() && v.overlap == "" }

// ids makes every orchestration text the harness registers unique.
var ids atomic.Int64

// check runs a case through the replicas, then through the Runner in the
// replicas' commit order, and compares. A run whose difference an overlap
// explains is repeated (up to three times): timing decides whether the
// overlap happens.
func (e *env) check(ctx context.Context, k kase) (verdict, error) {
	var v verdict
	for range 3 {
		var err error
		if v, err = e.checkOnce(ctx, k); err != nil || v.fails() || !v.differs() {
			return v, err
		}
	}
	return v, nil
}

func (e *env) checkOnce(ctx context.Context, k kase) (verdict, error) {
	doc := k.orch.clone()
	doc.ID = fmt.Sprintf("%s-%d", doc.ID, ids.Add(1))
	o, err := registry.Parse(doc.JSON())
	if err != nil {
		return verdict{}, fmt.Errorf("case %s: the registry rejects the orchestration: %w\n%s", k.name, err, doc.JSON())
	}
	if err := e.src.add(o); err != nil {
		return verdict{}, err
	}
	var v verdict
	if v.replicas, err = e.runReplicas(ctx, o, k.outcomes, k.threaded); err != nil {
		return v, fmt.Errorf("case %s: %w", k.name, err)
	}
	path := paths(v.replicas.sum.Processes)
	for _, ev := range v.replicas.events {
		if ev.Type == "executed" {
			v.order = append(v.order, path[ev.Pid])
		}
	}
	if v.runner, v.problems, err = e.runRunner(ctx, o, k.outcomes, k.threaded, v.order); err != nil {
		return v, fmt.Errorf("case %s: %w", k.name, err)
	}
	v.diff = diffLines(v.replicas.tree, v.runner.tree)
	if v.replicas.tree == v.runner.tree {
		v.diff = nil
	}
	v.overlap = overlap(o, v.replicas)
	v.breach = windowBreach(o, v.replicas)
	return v, nil
}

// windowBreach checks the replicas kept the session's window of 1: at most
// one execution in flight at a time, besides those of join-creating steps,
// which bypass the window (reactor.CreatesJoin).
func windowBreach(o *registry.Orchestration, r run) string {
	running := map[string]string{}
	for _, ev := range r.events {
		switch ev.Type {
		case "claimed":
			if s := o.Step(ev.Step); s != nil && reactor.CreatesJoin(s) {
				continue
			}
			if pid := anyKey(running); pid != "" {
				return fmt.Sprintf("%s (%s) was claimed while %s (%s) ran, in a session with window 1", ev.Pid, ev.Step, pid, running[pid])
			}
			running[ev.Pid] = ev.Step
		case "executed":
			delete(running, ev.Pid)
		}
	}
	return ""
}

// overlap says why the replicas' run cannot be reproduced by a sequential
// driver, or "": a process was running (claimed, not yet committed) when
// another's commit closed its group's join with kill, or cancelled or
// capped the session. The running process then finishes (its deliveries
// ignored, its spawns gated), where a sequential driver would have
// aborted it before it ran (seed 001 §4.3: kill is ASAP, running members
// may finish).
func overlap(o *registry.Orchestration, r run) string {
	byPid := map[string]reactor.ProcessSummary{}
	for _, p := range r.sum.Processes {
		byPid[p.Pid] = p
	}
	running := map[string]bool{}
	for _, ev := range r.events {
		switch ev.Type {
		case "claimed":
			running[ev.Pid] = true
		case "executed":
			delete(running, ev.Pid)
		case "join_closed", "join_aborted":
			if killPolicy(o, byPid, ev.Pid) {
				group := fmt.Sprint(iterOf(ev.Pid))
				for pid := range running {
					if byPid[pid].JoinGroupID == group {
						return fmt.Sprintf("%s (%s) was running when join %s (%s) closed with kill", pid, byPid[pid].Step, ev.Pid, byPid[ev.Pid].Step)
					}
				}
			}
		case "cancelled", "capped":
			if pid := anyKey(running); pid != "" {
				return fmt.Sprintf("%s (%s) was running when %s %s the session", pid, byPid[pid].Step, ev.Pid, ev.Type)
			}
		}
	}
	return ""
}

// anyKey returns the smallest key of a map ("" when it is empty).
func anyKey[V any](m map[string]V) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}

// killPolicy reports whether the join of target closes with kill: the
// policy of the join its parent's selected branch declared.
func killPolicy(o *registry.Orchestration, byPid map[string]reactor.ProcessSummary, target string) bool {
	t, ok := byPid[target]
	if !ok {
		return false
	}
	p, ok := byPid[t.ParentPid]
	if !ok || p.Valid == nil {
		return false
	}
	s := o.Step(p.Step)
	if s == nil {
		return false
	}
	b := s.OnInvalid
	if *p.Valid {
		b = s.OnValid
	}
	return b != nil && b.Join != nil && b.Join.Target == t.Step && b.Join.Policy == registry.PolicyKill
}

// report is a failing case, shrunk, as a reproduction.
func report(k kase, v verdict, origin string, shrunk string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the drivers disagree on %s (%s)\n%s\n", k.name, origin, shrunk)
	fmt.Fprintf(&b, "orchestration (start step %s):\n%s", k.orch.Steps[0].ID, k.orch.JSON())
	how := "reactor.Scripted: a list is used by a step's successive executions in the session"
	if k.threaded {
		how = "threaded: element n of a list at the step's n-th execution along one line of descent (payload key loop.STEP)"
	}
	fmt.Fprintf(&b, "outcomes (%s):\n%s", how, k.outcomes.JSON())
	fmt.Fprintf(&b, "replicas' commit order, which the Runner was made to follow:\n  %s\n", strings.Join(v.order, "\n  "))
	if v.breach != "" {
		fmt.Fprintf(&b, "replicas: %s\n", v.breach)
	}
	for _, p := range v.problems {
		fmt.Fprintf(&b, "runner: %s\n", p)
	}
	if len(v.diff) > 0 {
		fmt.Fprintf(&b, "differences:\n  %s\n", strings.Join(v.diff, "\n  "))
	}
	fmt.Fprintf(&b, "replicas' timeline:\n")
	for _, e := range v.replicas.events {
		fmt.Fprintf(&b, "  %s %-9s %-6s %-4s %s\n", e.At.Format("15:04:05.000000"), e.Type, e.Pid, e.Step, e.Detail)
	}
	fmt.Fprintf(&b, "tree under the replicas (reactor.Manager):\n  %s\n", strings.ReplaceAll(v.replicas.tree, "\n", "\n  "))
	fmt.Fprintf(&b, "tree under the Runner (reactor.Runner):\n  %s\n", strings.ReplaceAll(v.runner.tree, "\n", "\n  "))
	return b.String()
}

// stats counts what a batch of cases did.
type stats struct {
	cases, compared, overlapped, failed atomic.Int64
	executions                          atomic.Int64
	// calls counts the replicas' on-chain executions (executing lines).
	calls atomic.Int64
}

func (s *stats) String() string {
	return fmt.Sprintf("%d cases: %d compared equal, %d failed, %d not comparable (overlap, see docs/testing.md); %d executions per driver, %d of them with calls sent",
		s.cases.Load(), s.compared.Load(), s.failed.Load(), s.overlapped.Load(), s.executions.Load(), s.calls.Load())
}

// checkAll checks the cases on workers; each failing case is shrunk and
// reported through fail (at most maxReports of them are shrunk).
func (e *env) checkAll(ctx context.Context, cases <-chan kase, workers int, origin func(kase) string, fail func(string), st *stats) {
	const maxReports = 3
	var reports atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range cases {
				st.cases.Add(1)
				v, err := e.check(ctx, k)
				if err != nil {
					st.failed.Add(1)
					fail(err.Error())
					continue
				}
				st.executions.Add(int64(len(v.order)))
				for _, ev := range v.replicas.events {
					if ev.Type == reactor.EvExecuting {
						st.calls.Add(1)
					}
				}
				switch {
				case v.fails():
					st.failed.Add(1)
					if reports.Add(1) > maxReports {
						fail(fmt.Sprintf("%s (%s) also fails (not shrunk)", k.name, origin(k)))
						continue
					}
					small, sv, note := e.shrink(ctx, k, v)
					fail(report(small, sv, origin(k), note))
				case v.differs():
					st.overlapped.Add(1)
					if os.Getenv(envVerbose) != "" {
						fail(fmt.Sprintf("note: %s (%s) not comparable: %s", k.name, origin(k), v.overlap))
					}
				default:
					st.compared.Add(1)
				}
			}
		}()
	}
	wg.Wait()
}
