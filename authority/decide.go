package authority

import (
	"slices"

	"github.com/ethereum/go-ethereum/common"
)

// Status is a runner's standing on one contract, as the OPS coverage panel
// names it.
type Status string

// The three statuses.
const (
	// StatusExecutor: the runner is on the contract's executor list.
	StatusExecutor Status = "has-executor"
	// StatusOwner: the runner is the contract's owner, authorized without
	// being listed.
	StatusOwner Status = "owner-implicit"
	// StatusMissing: neither; the runner may not run the contract.
	StatusMissing Status = "missing"
)

// Label is the status in the OPS panel's words.
func (s Status) Label() string {
	switch s {
	case StatusExecutor:
		return "has executor"
	case StatusOwner:
		return "owner (implicit)"
	}
	return "missing"
}

// Judge is runner's status on the contract with facts f: owner (implicit)
// when it is the owner, has executor when the contract has an executor
// list that holds it, missing otherwise (a contract without
// getExecutorList() is owner-only; one without an owner authorizes only
// its listed executors).
func Judge(runner common.Address, f Facts) Status {
	switch {
	case f.HasOwner() && runner == f.Owner:
		return StatusOwner
	case f.ExecutorList && runner != (common.Address{}) && slices.Contains(f.Executors, runner):
		return StatusExecutor
	}
	return StatusMissing
}

// Row is the verdict on one contract.
type Row struct {
	Kind     Kind           `json:"kind"`
	Contract common.Address `json:"contract"`
	// Owner is nil when the contract answers no owner().
	Owner *common.Address `json:"owner"`
	// ExecutorList is false for an owner-only contract (no
	// getExecutorList()).
	ExecutorList bool   `json:"executorList"`
	Status       Status `json:"status"`
	// Uses are the steps that reference a rule contract.
	Uses []Use `json:"uses,omitempty"`
	// Block is the block the facts were read at.
	Block uint64 `json:"block,omitempty"`
}

// OK reports whether the runner is authorized on the contract.
func (r Row) OK() bool { return r.Status != StatusMissing }

// Coverage is the verdict on every contract of a plan.
type Coverage struct {
	Runner common.Address `json:"runner"`
	// Registry is nil for sessions of a local file.
	Registry *Row `json:"registry"`
	// Rules are in the plan's order.
	Rules      []Row        `json:"rules"`
	Unresolved []Unresolved `json:"unresolved,omitempty"`
}

// Decide judges runner on every contract of p from facts (a contract
// without facts answers no owner() and has no executor list). It is pure.
func Decide(runner common.Address, p Plan, facts map[common.Address]Facts) Coverage {
	row := func(k Kind, c common.Address, uses []Use) Row {
		f := facts[c]
		r := Row{Kind: k, Contract: c, ExecutorList: f.ExecutorList, Status: Judge(runner, f), Uses: uses, Block: f.Block}
		if f.HasOwner() {
			o := f.Owner
			r.Owner = &o
		}
		return r
	}
	cov := Coverage{Runner: runner, Rules: make([]Row, 0, len(p.Rules)), Unresolved: p.Unresolved}
	if p.Registry != nil {
		r := row(KindRegistry, *p.Registry, nil)
		cov.Registry = &r
	}
	for _, ref := range p.Rules {
		cov.Rules = append(cov.Rules, row(KindRule, ref.Contract, ref.Uses))
	}
	return cov
}

// Missing are the contracts that refuse the runner: the registry first,
// then the rule contracts in order.
func (c Coverage) Missing() []Row {
	var out []Row
	if c.Registry != nil && !c.Registry.OK() {
		out = append(out, *c.Registry)
	}
	for _, r := range c.Rules {
		if !r.OK() {
			out = append(out, r)
		}
	}
	return out
}

// Err is nil when the runner is authorized on every contract, else an
// *Error naming the first contract that refuses it.
func (c Coverage) Err() error {
	m := c.Missing()
	if len(m) == 0 {
		return nil
	}
	return &Error{Runner: c.Runner, Refused: m[0], Missing: len(m)}
}
