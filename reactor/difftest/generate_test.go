package difftest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// generate returns a random case within the registry's rules (the
// registry accepts it; warnings allowed): 3 to 8 steps, branches with
// spawns (forward mostly, sometimes back: loops), joins of every mode
// (any, all, kofn, {"k": n}, mode left out) with kill, drain or no policy,
// `when` filters, inputs the branch's spawns lead to and sometimes ones
// nothing leads to, joins whose target declares a join itself (nested);
// outcomes valid, invalid, hard error and cancel, payloads, short waits,
// delays, lists of outcomes that end loops, and executions (success,
// revert, revert with an onInvalid execution, refusal, transient failures).
func generate(r *rand.Rand, name string) kase {
	for {
		k := kase{name: name, orch: genOrch(r, name), threaded: true}
		k.outcomes = genOutcomes(r, k.orch)
		if _, err := registry.Parse(k.orch.JSON()); err == nil {
			return k
		}
	}
}

func genOrch(r *rand.Rand, id string) *orch {
	n := 3 + r.IntN(6)
	o := &orch{ID: id}
	for i := range n {
		o.Steps = append(o.Steps, &step{ID: fmt.Sprintf("S%d", i+1)})
	}
	for i, s := range o.Steps {
		if r.IntN(10) < 7 {
			s.Valid = genBranch(r, o, i)
		}
		if r.IntN(10) < 4 {
			s.Invalid = genBranch(r, o, i)
		}
	}
	return o
}

// pickStep is a step to spawn from step i: a later one mostly, sometimes
// any (a loop when it is not later).
func pickStep(r *rand.Rand, o *orch, i int) string {
	n := len(o.Steps)
	if i+1 < n && r.IntN(10) < 8 {
		return o.Steps[i+1+r.IntN(n-i-1)].ID
	}
	return o.Steps[r.IntN(n)].ID
}

func genBranch(r *rand.Rand, o *orch, i int) *branch {
	b := &branch{}
	for range r.IntN(4) {
		b.Spawns = append(b.Spawns, pickStep(r, o, i))
	}
	if len(b.Spawns) > 0 && r.IntN(10) < 5 {
		b.Join = genJoin(r, o, i, b.Spawns)
	}
	if len(b.Spawns) == 0 && b.Join == nil && r.IntN(2) == 0 {
		return nil
	}
	return b
}

func genJoin(r *rand.Rand, o *orch, i int, spawns []string) *join {
	j := &join{Target: pickStep(r, o, i)}
	seen := map[string]bool{}
	add := func(node string) {
		if !seen[node] {
			seen[node] = true
			j.From = append(j.From, from{Node: node, When: []string{"", "valid", "invalid", "any", "valid"}[r.IntN(5)]})
		}
	}
	for _, sp := range spawns {
		if r.IntN(10) < 8 {
			add(sp)
		}
	}
	// Inputs the spawns may lead to (or nothing does: unfulfillable).
	for range r.IntN(3) {
		add(o.Steps[r.IntN(len(o.Steps))].ID)
	}
	if len(j.From) == 0 {
		add(spawns[0])
	}
	n := len(j.From)
	switch r.IntN(5) {
	case 0:
		j.Mode, j.K = "any", 1
	case 1:
		j.Mode, j.K = "all", n
	case 2:
		j.Mode, j.K = "kofn", 1+r.IntN(n)
	case 3:
		j.Mode, j.K = "kobj", 1+r.IntN(n)
	default:
		j.Mode, j.K = "", 1
	}
	j.Policy = []string{"kill", "drain", "", "kill"}[r.IntN(4)]
	return j
}

func genOutcomes(r *rand.Rand, o *orch) outcomes {
	oc := outcomes{}
	for _, s := range o.Steps {
		n := 1
		if r.IntN(4) == 0 {
			n = 2 + r.IntN(2)
		}
		for range n {
			oc[s.ID] = append(oc[s.ID], genOutcome(r, s.ID))
		}
	}
	return oc
}

func genOutcome(r *rand.Rand, id string) reactor.Outcome {
	var o reactor.Outcome
	switch x := r.IntN(100); {
	case x < 60:
		o.Result = "valid"
	case x < 85:
		o.Result = "invalid"
	case x < 96:
		o.Result = "error"
	default:
		o.Result = "cancel"
	}
	if r.IntN(10) < 3 {
		key := "k" + id
		if r.IntN(2) == 0 {
			key = "shared" // several steps write it: merges and overwrites show
		}
		o.Payload = map[string]any{key: json.Number(fmt.Sprint(r.IntN(1000)))}
	}
	if r.IntN(10) < 2 {
		o.WaitSec = float64(1+r.IntN(5)) / 100 // 10 to 50 ms
	}
	if r.IntN(10) < 1 {
		o.DelayMs = 1 + r.IntN(5)
	}
	if (o.Result == "valid" || o.Result == "invalid") && r.IntN(10) < 2 {
		// An execution: its outcome follows from the word (scripted.ByCallData).
		o.Execution = []string{"success", "success", "revert", "revert-flip", "refuse", "transient"}[r.IntN(6)]
	}
	return o
}
