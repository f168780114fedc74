package authority

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

// Checker judges runners with facts from a Reader, resolving rule
// references with a Resolver. Safe for concurrent use when its Reader and
// Resolver are.
type Checker struct {
	reader Reader
	rules  Resolver
}

// NewChecker returns a checker that reads facts through r and resolves
// 0x addresses alone: a start whose steps reference their rules otherwise
// is refused until the runtime's resolver is given (WithRules).
func NewChecker(r Reader) *Checker { return &Checker{reader: r} }

// WithRules returns a checker that resolves rule references with rules:
// the resolver of the runtime that will run the sessions (its
// *rulesource.Loader), so that every reference is resolved at start
// exactly as its step will be.
func (c *Checker) WithRules(rules Resolver) *Checker {
	return &Checker{reader: c.reader, rules: rules}
}

// Check reads the facts of p's contracts and judges runner on them. An
// error means the facts could not be read and nothing was decided; a
// refusal is in the coverage (Coverage.Err).
func (c *Checker) Check(ctx context.Context, runner common.Address, p Plan) (Coverage, error) {
	contracts := p.Contracts()
	facts := make(map[common.Address]Facts, len(contracts))
	if len(contracts) > 0 {
		fs, err := c.reader.Facts(ctx, contracts)
		if err != nil {
			return Coverage{}, fmt.Errorf("read the authority of runner %s: %w", runner.Hex(), err)
		}
		if len(fs) != len(contracts) {
			return Coverage{}, fmt.Errorf("read the authority of runner %s: %d facts for %d contracts", runner.Hex(), len(fs), len(contracts))
		}
		for i, f := range fs {
			facts[contracts[i]] = f
		}
	}
	return Decide(runner, p, facts), nil
}

// Authorize is nil when runner may run sessions of orchestration o
// recorded under the XRC-729 registry reg: Admit with the checker's
// resolver. The start use case (package session), which every front door
// calls, runs it (or Admit, with a resolver of its own) before it creates
// a session.
func (c *Checker) Authorize(ctx context.Context, runner common.Address, reg *common.Address, o *registry.Orchestration) error {
	return c.Admit(ctx, c.rules, runner, reg, o)
}

// Admit is the start-time authority check: every step's rule reference of
// o is resolved by rules as the runtime resolves it (nil: 0x addresses
// alone), and runner must be owner or executor of the registry reg and of
// every rule contract the references resolve to. reg nil judges the rule
// contracts alone (a session of a local file); o nil the registry alone
// (before the orchestration is read). A reference that does not resolve
// is an *UnresolvedError and a refusal an *Error, both decided before
// anything is written; any other error means the facts could not be read.
func (c *Checker) Admit(ctx context.Context, rules Resolver, runner common.Address, reg *common.Address, o *registry.Orchestration) error {
	p, err := ResolvePlan(reg, rules, o)
	if err != nil {
		return err
	}
	cov, err := c.Check(ctx, runner, p)
	if err != nil {
		return err
	}
	refusal := cov.Err()
	if ae, ok := refusal.(*Error); ok && o == nil && reg != nil {
		ae.RulesUnchecked = true
	}
	return refusal
}
