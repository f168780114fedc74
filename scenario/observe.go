package scenario

import (
	"sort"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Observed is what a session shows at one moment: its processes, as the
// store holds them, and what the executor saw when each one ran.
type Observed struct {
	// Finished is true once the session has no live process left.
	Finished bool `json:"finished"`
	// Procs are the session's processes in pid (iter) order.
	Procs []Proc `json:"processes"`
}

// Proc is one process of a session.
type Proc struct {
	Pid  string `json:"pid"`
	Iter int64  `json:"iter"`
	// Step is the step the process runs or ran (resumeStep).
	Step string `json:"step"`
	// Status is waiting, running, done or aborted.
	Status string `json:"status"`
	// Valid is the last evaluation's verdict; nil when it never evaluated.
	Valid *bool `json:"valid,omitempty"`
	// Executed is true when the step was committed (it ran).
	Executed bool `json:"executed"`
	// Updated is the record's last change (unix ms); Commit the position
	// of its entry in the proc_steps history (-1: none).
	Updated int64 `json:"updatedAt"`
	Commit  int   `json:"-"`
	// Recorded is true when the executor saw the evaluation; then Input
	// is the payload the step got, API the API save aliases and Reads the
	// contract-read keys it extracted (as cast).
	Recorded bool           `json:"-"`
	Input    map[string]any `json:"input,omitempty"`
	API      map[string]any `json:"api,omitempty"`
	Reads    map[string]any `json:"contractReads,omitempty"`
	// Reasons say why the evaluation was invalid; Error why the execution
	// failed (the process aborted).
	Reasons []string `json:"reasons,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// Live reports whether the process may still run.
func (p *Proc) Live() bool {
	return p.Status == "waiting" || p.Status == "running" || p.Status == "executing"
}

// Evaluation is what the executor saw of one evaluation.
type Evaluation struct {
	Input   map[string]any
	API     map[string]any
	Reads   map[string]any
	Reasons []string
	// Error is set when the execution failed (a hard error: the process
	// aborts); the maps may then be empty.
	Error string
}

// HistoryEntry is one proc_steps entry (a committed step), in commit order.
type HistoryEntry struct {
	Pid string
}

// ObservedFrom builds an Observed from store records: the session's meta,
// its process records (proc_rt fields, any order), its proc_steps
// history and the executor's evaluations by pid (the last one of a pid
// wins). It is pure.
func ObservedFrom(meta joinstore.SessionMeta, procs []joinstore.Process, history []HistoryEntry, evals map[string]Evaluation) *Observed {
	o := &Observed{Finished: meta.Status == joinstore.SessionFinished}
	commit := map[string]int{}
	for i, h := range history {
		commit[h.Pid] = i
	}
	for _, r := range procs {
		p := Proc{Pid: r.Pid, Iter: r.Iter, Step: r.ResumeStep, Status: string(r.Status), Commit: -1}
		if r.Valid != nil {
			v := *r.Valid
			p.Valid = &v
		}
		if c, ok := commit[p.Pid]; ok {
			p.Commit = c
		}
		p.Executed = r.LastStep != "" || p.Commit >= 0
		if !r.UpdatedAt.IsZero() {
			p.Updated = r.UpdatedAt.UnixMilli()
		}
		if e, ok := evals[p.Pid]; ok {
			p.Recorded, p.Input, p.API, p.Reads, p.Reasons, p.Error = true, e.Input, e.API, e.Reads, e.Reasons, e.Error
		}
		o.Procs = append(o.Procs, p)
	}
	sort.SliceStable(o.Procs, func(i, j int) bool { return o.Procs[i].Iter < o.Procs[j].Iter })
	return o
}

// Occurrence returns the n-th process (1-based, in pid order) that runs,
// ran or waits to run step, or nil.
func (o *Observed) Occurrence(step string, n int) *Proc {
	for i := range o.Procs {
		if o.Procs[i].Step == step {
			n--
			if n == 0 {
				return &o.Procs[i]
			}
		}
	}
	return nil
}

// Final is the process that stands for the session's state: while the
// session is live, its newest live process (highest pid); once it has
// finished, the process that finished last (latest update, then latest
// commit in proc_steps, then highest pid). nil for a session without
// processes.
func (o *Observed) Final() *Proc {
	var best *Proc
	for i := range o.Procs {
		p := &o.Procs[i]
		if p.Live() {
			if best == nil || !best.Live() || p.Iter > best.Iter {
				best = p
			}
			continue
		}
		if best != nil && best.Live() {
			continue
		}
		if best == nil || later(p, best) {
			best = p
		}
	}
	return best
}

func later(a, b *Proc) bool {
	if a.Updated != b.Updated {
		return a.Updated > b.Updated
	}
	if a.Commit != b.Commit {
		return a.Commit > b.Commit
	}
	return a.Iter > b.Iter
}

// Reached reports whether some process of step has reached status in its
// life so far (status "" = any: the process exists). Every process is
// created waiting, so "waiting" is reached by any process of the step,
// whatever it did since; "running" by one that is running or ran
// (executing, done, or aborted after executing); "executing", "done" and
// "aborted" by a process in that status. A wait therefore cannot miss a state that passed between two
// looks.
func (o *Observed) Reached(step, status string) *Proc {
	for i := range o.Procs {
		p := &o.Procs[i]
		if p.Step != step {
			continue
		}
		switch status {
		case "", "waiting":
			return p
		case "running":
			if p.Status == "running" || p.Status == "executing" || p.Status == "done" || (p.Status == "aborted" && p.Executed) {
				return p
			}
		default:
			if p.Status == status {
				return p
			}
		}
	}
	return nil
}
