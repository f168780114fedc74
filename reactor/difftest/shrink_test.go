package difftest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// shrinkBudget bounds the time spent shrinking one failing case.
const shrinkBudget = 90 * time.Second

// shrink makes a failing case smaller while it still fails: it drops steps,
// spawns, joins, join inputs and branches, and simplifies outcomes (a list
// to one element, a result to valid, no payload, no wait, no delay), one
// change at a time, keeping each change after which the drivers still
// disagree (outside an overlap), until none does or the budget is spent.
func (e *env) shrink(ctx context.Context, k kase, v verdict) (kase, verdict, string) {
	deadline := time.Now().Add(shrinkBudget)
	steps, tried, kept := len(k.orch.Steps), 0, 0
	for progress := true; progress && time.Now().Before(deadline); {
		progress = false
		for _, c := range simpler(k) {
			if time.Now().After(deadline) {
				break
			}
			if _, err := registry.Parse(c.orch.JSON()); err != nil {
				continue
			}
			tried++
			cv, err := e.check(ctx, c)
			if err != nil || !cv.fails() {
				continue
			}
			k, v, progress = c, cv, true
			kept++
			break
		}
	}
	return k, v, fmt.Sprintf("shrunk from %d steps to %d: %d of %d simpler variants kept the difference", steps, len(k.orch.Steps), kept, tried)
}

// simpler lists the variants of a case that differ from it by one change,
// the biggest changes first.
func simpler(k kase) []kase {
	var out []kase
	with := func(o *orch, oc outcomes) {
		out = append(out, kase{name: k.name, orch: o, outcomes: oc, threaded: k.threaded})
	}
	for _, s := range k.orch.Steps[1:] {
		o := k.orch.clone()
		o.dropStep(s.ID)
		oc := k.outcomes.clone()
		delete(oc, s.ID)
		with(o, oc)
	}
	for i := range k.orch.Steps {
		for _, valid := range []bool{true, false} {
			b := k.orch.Steps[i].branch(valid)
			if b == nil {
				continue
			}
			o := k.orch.clone()
			o.Steps[i].setBranch(valid, nil)
			with(o, k.outcomes)
			if b.Join != nil {
				o := k.orch.clone()
				o.Steps[i].branch(valid).Join = nil
				with(o, k.outcomes)
				for f := range b.Join.From {
					if len(b.Join.From) == 1 {
						break
					}
					o := k.orch.clone()
					j := o.Steps[i].branch(valid).Join
					j.From = slices.Delete(j.From, f, f+1)
					j.clampK()
					with(o, k.outcomes)
				}
			}
			for n := range b.Spawns {
				o := k.orch.clone()
				br := o.Steps[i].branch(valid)
				br.Spawns = slices.Delete(br.Spawns, n, n+1)
				with(o, k.outcomes)
			}
		}
	}
	for st := range k.outcomes {
		if st != "default" && !k.orch.has(st) {
			oc := k.outcomes.clone()
			delete(oc, st)
			with(k.orch, oc)
		}
	}
	for st, list := range k.outcomes {
		if len(list) > 1 {
			for _, one := range []reactor.Outcome{list[0], list[len(list)-1]} {
				oc := k.outcomes.clone()
				oc[st] = []reactor.Outcome{one}
				with(k.orch, oc)
			}
		}
		for i, o := range list {
			for _, simple := range simplerOutcomes(o) {
				oc := k.outcomes.clone()
				oc[st][i] = simple
				with(k.orch, oc)
			}
		}
	}
	return out
}

func simplerOutcomes(o reactor.Outcome) []reactor.Outcome {
	var out []reactor.Outcome
	if o.Result != "valid" {
		s := o
		s.Result = "valid"
		out = append(out, s)
	}
	if o.Payload != nil {
		s := o
		s.Payload = nil
		out = append(out, s)
	}
	if o.WaitSec != 0 {
		s := o
		s.WaitSec = 0
		out = append(out, s)
	}
	if o.DelayMs != 0 {
		s := o
		s.DelayMs = 0
		out = append(out, s)
	}
	return out
}

func (o *orch) has(id string) bool {
	return slices.ContainsFunc(o.Steps, func(s *step) bool { return s.ID == id })
}

func (s *step) branch(valid bool) *branch {
	if valid {
		return s.Valid
	}
	return s.Invalid
}

func (s *step) setBranch(valid bool, b *branch) {
	if valid {
		s.Valid = b
	} else {
		s.Invalid = b
	}
}

// dropStep removes a step and every reference to it: spawns of it, joins
// it is the target of, join inputs naming it (a join left without inputs
// goes; k shrinks to the inputs left).
func (o *orch) dropStep(id string) {
	o.Steps = slices.DeleteFunc(o.Steps, func(s *step) bool { return s.ID == id })
	for _, s := range o.Steps {
		for _, b := range []*branch{s.Valid, s.Invalid} {
			if b == nil {
				continue
			}
			b.Spawns = slices.DeleteFunc(b.Spawns, func(sp string) bool { return sp == id })
			if j := b.Join; j != nil {
				j.From = slices.DeleteFunc(j.From, func(f from) bool { return f.Node == id })
				if j.Target == id || len(j.From) == 0 {
					b.Join = nil
				} else {
					j.clampK()
				}
			}
		}
	}
}

// clampK keeps an explicit k within the inputs.
func (j *join) clampK() {
	j.K = min(j.K, len(j.From))
}
