package authority

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Resolver binds a step's rule reference to what the runtime will read
// the rule from: an XRC-137 rule contract (Target.Address) or a local rule
// file (Target.File). *rulesource.Loader implements it, and its Load reads
// rules through the same Resolve, so the contracts a start is authorized on
// are the ones its steps read. A reference that does not resolve is an
// error.
type Resolver interface {
	Resolve(ref string) (rulesource.Target, error)
}

// addressesOnly is the resolver of a Checker given none: the one of a
// runtime that reads rules from chain alone (no rule directory, no
// addresses: bindings). A 0x address names its contract; every other
// reference is unresolved.
var addressesOnly Resolver = &rulesource.Loader{}

// ReasonUnresolved is the stable reason of a start refused because a
// step's rule reference does not resolve (the gateway's data.reason).
const ReasonUnresolved = "rule-unresolved"

// UnresolvedError refuses a start: a step's rule reference resolves
// neither to a rule contract nor to a rule file, as the runtime would
// resolve it, so no authority can be decided for it.
type UnresolvedError struct {
	OstcID string
	Step   string
	Rule   string
	// Err is the resolver's answer.
	Err error
}

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("orchestration %q step %s: rule reference %q does not resolve to an XRC-137 rule contract or a rule file as the runtime resolves it (%v); no authority can be decided for it, so nothing is started: the operator binds ${addr:ALIAS} and <NAME> references in the addresses: section of xgr run's --config (or maps them in --rules DIR/rules.json), or the step names the contract's 0x address",
		e.OstcID, e.Step, e.Rule, e.Err)
}

func (e *UnresolvedError) Unwrap() error { return e.Err }

// ResolvePlan is the plan of a start: the registry (when not nil) and the
// rule contract of every step of the orchestrations, each reference
// resolved by rules as the runtime resolves it (nil: 0x addresses alone).
// A reference that resolves to a local rule file, or to a scripted
// outcome (ScriptedSteps), reads no contract: it needs no authority and is
// left out; the first one that does not resolve is an *UnresolvedError.
// It reads nothing.
func ResolvePlan(reg *common.Address, rules Resolver, orchs ...*registry.Orchestration) (Plan, error) {
	if rules == nil {
		rules = addressesOnly
	}
	p := Plan{Registry: reg}
	for _, o := range orchs {
		if o == nil {
			continue
		}
		for _, s := range o.Steps {
			t, err := rules.Resolve(s.Rule)
			switch {
			case err != nil:
				return Plan{}, &UnresolvedError{OstcID: o.ID, Step: s.ID, Rule: s.Rule, Err: err}
			case t.File != "" || t.Via == ViaScripted:
				continue
			case t.Address == (common.Address{}):
				return Plan{}, &UnresolvedError{OstcID: o.ID, Step: s.ID, Rule: s.Rule, Err: errors.New("it resolves to the zero address")}
			}
			p.addUse(t.Address, o.ID, s.ID)
		}
	}
	return p, nil
}

// ViaScripted is the Target.Via of a reference ScriptedSteps resolves to
// no rule: its step plays a scripted outcome.
const ViaScripted = "scripted outcomes"

// ScriptedSteps is the resolver of a runtime that plays the steps its rule
// source does not cover from scripted outcomes (xgr run --outcomes, xgr
// dev without rules): a reference rules does not cover (an error wrapping
// rulesource.ErrNotCovered, as the runtime's executor falls back on it)
// reads no rule, so it resolves to no contract (Target.Via ViaScripted) and
// needs no authority. rules nil: every step is scripted.
func ScriptedSteps(rules Resolver) Resolver { return scripted{rules} }

type scripted struct{ rules Resolver }

func (s scripted) Resolve(ref string) (rulesource.Target, error) {
	if s.rules == nil {
		return rulesource.Target{Via: ViaScripted}, nil
	}
	t, err := s.rules.Resolve(ref)
	if errors.Is(err, rulesource.ErrNotCovered) {
		return rulesource.Target{Via: ViaScripted}, nil
	}
	return t, err
}
