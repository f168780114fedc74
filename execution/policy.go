package execution

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// MaxGas bounds every gas figure of the policy (2^53-1): the session
// budget is summed in a Redis script, whose numbers are exact up to it.
const MaxGas = 1<<53 - 1

// The Limit names of the refusals Policy.Check gives.
const (
	LimitTargets     = "executions.targets"
	LimitMaxGas      = "executions.maxGasLimit"
	LimitPermitGas   = "maxTotalGas"                  // the SessionPermit's
	LimitDefaultGas  = "executions.defaultSessionGas" // when the permit sets none
	LimitAuthority   = "authority"
	LimitInputTarget = "execution.to"
)

// Policy is the operator's limits on executions (the executions: section
// of the config). Check is pure.
type Policy struct {
	// AnyTarget allows every target; else Targets lists the allowed ones.
	AnyTarget bool
	Targets   []common.Address
	// MaxGasLimit caps the gas limit of one execution; a rule's gas.limit
	// may lower it, never raise it. An execution without gas.limit gets
	// MaxGasLimit.
	MaxGasLimit uint64
	// DefaultSessionGas is a session's gas budget when its permit sets no
	// maxTotalGas (Scope.MaxTotalGas 0).
	DefaultSessionGas uint64
}

// GasLimit is the gas limit c is sent with: the rule's gas.limit, or
// MaxGasLimit when the rule sets none.
func (p Policy) GasLimit(c Call) uint64 {
	if c.GasLimit > 0 {
		return c.GasLimit
	}
	return p.MaxGasLimit
}

// Budget is the session's gas budget and the name of the limit that sets
// it: the permit's maxTotalGas, or DefaultSessionGas when that is 0.
// Budgets above MaxGas count as MaxGas.
func (p Policy) Budget(s Scope) (gas uint64, limit string) {
	gas, limit = s.MaxTotalGas, LimitPermitGas
	if gas == 0 {
		gas, limit = p.DefaultSessionGas, LimitDefaultGas
	}
	return min(gas, MaxGas), limit
}

// Check decides whether c may be sent for s when the session has reserved
// spentGas so far: the target must be allowed, the rule's gas limit at
// most MaxGasLimit, and spentGas plus the call's gas limit within the
// session's budget. A refusal is a *Refusal naming the limit; nil means
// the call may go (authority is checked apart, on chain).
func (p Policy) Check(s Scope, c Call, spentGas uint64) error {
	if c.To == (common.Address{}) {
		return &Refusal{Limit: LimitInputTarget, Reason: "execution to the zero address: an execution calls a contract or account, never 0x0"}
	}
	if !p.AnyTarget && !p.allowed(c.To) {
		return &Refusal{Limit: LimitTargets, Reason: fmt.Sprintf("execution to %s: the target is not among the %d contracts executions may call (%s); add it to executions.targets or write targets: any",
			c.To.Hex(), len(p.Targets), LimitTargets)}
	}
	if c.GasLimit > p.MaxGasLimit {
		return &Refusal{Limit: LimitMaxGas, Reason: fmt.Sprintf("execution to %s: the rule's gas.limit %d is above the operator's cap %d (%s); lower gas.limit or raise the cap",
			c.To.Hex(), c.GasLimit, p.MaxGasLimit, LimitMaxGas)}
	}
	gas := p.GasLimit(c)
	if gas == 0 {
		return &Refusal{Limit: LimitMaxGas, Reason: fmt.Sprintf("execution to %s: no gas limit: the rule sets no gas.limit and %s is 0", c.To.Hex(), LimitMaxGas)}
	}
	budget, limit := p.Budget(s)
	if spentGas > budget || gas > budget-spentGas {
		return &Refusal{Limit: limit, Reason: fmt.Sprintf("execution to %s: its gas limit %d over the %d the session has reserved so far exceeds the session's gas budget %d (%s)",
			c.To.Hex(), gas, spentGas, budget, budgetSource(limit))}
	}
	return nil
}

func (p Policy) allowed(to common.Address) bool {
	for _, t := range p.Targets {
		if t == to {
			return true
		}
	}
	return false
}

func budgetSource(limit string) string {
	if limit == LimitPermitGas {
		return "the SessionPermit's maxTotalGas"
	}
	return LimitDefaultGas + ", as the SessionPermit sets no maxTotalGas"
}
