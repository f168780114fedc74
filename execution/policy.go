package execution

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// MaxGas bounds every gas figure of the policy (2^53-1): budgets are
// summed in Redis scripts, whose numbers are exact up to it.
const MaxGas = 1<<53 - 1

// The Limit names of the refusals Policy.Check and the reservations give:
// the config path (or permit field) of the limit that refused. A refusal
// by one target's settings names the target's index, e.g.
// executions.targets[0].functions (see TargetLimit).
const (
	LimitTargets      = "executions.targets"
	LimitMaxGas       = "executions.maxGasLimit"
	LimitPermitGas    = "maxTotalGas" // the SessionPermit's, when it is below the ceiling
	LimitSessionGas   = "executions.maxSessionGas"
	LimitOwnerGas     = "executions.maxGasPerOwnerPerDay"
	LimitValue        = "executions.value.maxPerExecution"
	LimitSessionValue = "executions.value.maxPerSession"
	LimitOwnerValue   = "executions.value.maxPerOwnerPerDay"
	LimitOwnerSpend   = "executions.maxSpendPerOwnerPerDay"
	LimitAuthority    = "authority"
	LimitInputTarget  = "execution.to"
)

// TargetLimit is the Limit name of setting of the i-th entry of
// executions.targets, e.g. TargetLimit(0, "functions") is
// "executions.targets[0].functions".
func TargetLimit(i int, setting string) string {
	return fmt.Sprintf("%s[%d].%s", LimitTargets, i, setting)
}

// Policy is the operator's limits on executions (the executions: section
// of the config): what the executor key may be made to do. Check is pure.
// The zero Policy refuses everything.
type Policy struct {
	// AnyTarget allows every address and every function on it but
	// TokenMoves, never a plain transfer and never value (targets: any; the config accepts it
	// only with allowAnyTarget: i-understand-the-risk). Else Targets lists
	// the allowed ones.
	AnyTarget bool
	Targets   []Target
	// MaxGasLimit caps the gas limit of one execution; a rule's gas.limit
	// may lower it, never raise it. An execution without gas.limit gets
	// MaxGasLimit.
	MaxGasLimit uint64
	// MaxSessionGas is the ceiling of a session's gas budget (gas limits
	// reserved). The SessionPermit's maxTotalGas may only lower it.
	MaxSessionGas uint64
	// MaxGasPerOwnerPerDay caps the gas limits reserved by all sessions of
	// one owner in one UTC day.
	MaxGasPerOwnerPerDay uint64
	// Value caps the wei executions carry; a target must allow value too.
	Value ValueCaps
	// MaxSpendPerOwnerPerDay caps, per owner and UTC day, the executor's
	// worst-case spend: gas limit × the fee cap (maxFeePerGas) + value,
	// summed over the owner's executions. nil: no cap of its own (the spend
	// is still bounded by MaxGasPerOwnerPerDay × maxFeePerGas +
	// Value.MaxPerOwnerPerDay).
	MaxSpendPerOwnerPerDay *big.Int
}

// ValueCaps are the section's caps on value (wei). A nil or zero session
// or owner-day cap allows no value at all (the default).
type ValueCaps struct {
	// MaxPerExecution caps every execution's value whatever its target
	// allows; nil leaves it to the targets' own caps.
	MaxPerExecution *big.Int
	// MaxPerSession caps the value of all executions of one session.
	MaxPerSession *big.Int
	// MaxPerOwnerPerDay caps the value of all executions of one owner in
	// one UTC day.
	MaxPerOwnerPerDay *big.Int
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
// it: MaxSessionGas (at most MaxGas), or the permit's maxTotalGas when it
// is lower (a permit's 0 sets none). A permit never raises the budget.
func (p Policy) Budget(s Scope) (gas uint64, limit string) {
	gas, limit = min(p.MaxSessionGas, MaxGas), LimitSessionGas
	if s.MaxTotalGas > 0 && s.MaxTotalGas < gas {
		gas, limit = s.MaxTotalGas, LimitPermitGas
	}
	return gas, limit
}

// Cost is c's worst case for the executor: its gas limit at the fee cap
// maxFeePerGas (no attempt or bump is signed above it), plus its value.
func (p Policy) Cost(c Call, maxFeePerGas *big.Int) *big.Int {
	cost := new(big.Int).SetUint64(p.GasLimit(c))
	if maxFeePerGas != nil {
		cost.Mul(cost, maxFeePerGas)
	} else {
		cost.SetInt64(0)
	}
	if c.Value != nil {
		cost.Add(cost, c.Value)
	}
	return cost
}

// Check decides whether c may be sent for s when the session has reserved
// spentGas so far, in this order: the target must be allowed; a call
// without calldata only where the target allows plain transfers; the
// calldata's selector among the target's functions; value only where the
// target allows it and within its cap and each of the section's value
// caps; the rule's gas limit at most MaxGasLimit; spentGas plus the call's
// gas limit within the session's budget, and the gas limit within the
// owner's daily gas. A refusal is a *Refusal naming the limit; nil means
// the call may go. The sums over a session and an owner's day are checked
// again, atomically, where they are kept (Budget.ReserveExecution);
// authority is checked apart, on chain.
func (p Policy) Check(s Scope, c Call, spentGas uint64) error {
	if c.To == (common.Address{}) {
		return &Refusal{Limit: LimitInputTarget, Reason: "execution to the zero address: an execution calls a contract or account, never 0x0"}
	}
	if err := p.checkTarget(c); err != nil {
		return err
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
	if gas > p.MaxGasPerOwnerPerDay {
		return &Refusal{Limit: LimitOwnerGas, Reason: fmt.Sprintf("execution to %s: its gas limit %d is above the gas one owner may reserve per day, %d (%s)",
			c.To.Hex(), gas, p.MaxGasPerOwnerPerDay, LimitOwnerGas)}
	}
	return nil
}

// checkTarget checks c against the target's settings: functions, plain
// transfer and value.
func (p Policy) checkTarget(c Call) error {
	i, t, ok := p.target(c.To)
	if !ok {
		return &Refusal{Limit: LimitTargets, Reason: fmt.Sprintf("execution to %s: the target is not among the %d contracts executions may call (%s); add it to %s",
			c.To.Hex(), len(p.Targets), LimitTargets, LimitTargets)}
	}
	where, limit := func(setting string) string { return TargetLimit(i, setting) }, LimitTargets
	if i < 0 {
		where = func(string) string { return LimitTargets }
	} else {
		limit = TargetLimit(i, "functions")
	}
	switch {
	case len(c.Data) == 0 && !t.PlainTransfer:
		why := "the target does not allow plain transfers; set plainTransfer: true on it to allow them"
		if i < 0 {
			why = "targets: any never allows a plain transfer; list the address with plainTransfer: true"
		}
		return &Refusal{Limit: where("plainTransfer"), Reason: fmt.Sprintf("execution to %s: a call without calldata (a plain transfer): %s", c.To.Hex(), why)}
	case len(c.Data) > 0 && len(c.Data) < 4:
		return &Refusal{Limit: limit, Reason: fmt.Sprintf("execution to %s: calldata of %d bytes has no 4-byte function selector", c.To.Hex(), len(c.Data))}
	}
	if len(c.Data) >= 4 {
		fn := c.Function
		if fn == "" {
			fn = "?"
		}
		switch ok, excluded := t.allows(c.Data[:4]); {
		case excluded && i < 0:
			return &Refusal{Limit: limit, Reason: fmt.Sprintf("execution to %s: function %s (selector 0x%x) moves or approves the caller's tokens, which targets: any never allows; list the target with the function under functions",
				c.To.Hex(), fn, []byte(c.Data[:4]))}
		case excluded:
			return &Refusal{Limit: limit, Reason: fmt.Sprintf("execution to %s: function %s (selector 0x%x) moves or approves the caller's tokens, which a target given as a bare address never allows; list it under %s to allow it",
				c.To.Hex(), fn, []byte(c.Data[:4]), limit)}
		case !ok:
			return &Refusal{Limit: limit, Reason: fmt.Sprintf("execution to %s: function %s (selector 0x%x) is not among the functions the target allows (%s: %s)",
				c.To.Hex(), fn, []byte(c.Data[:4]), limit, t.functionNames())}
		}
	}
	if c.Value == nil || c.Value.Sign() == 0 {
		return nil
	}
	v := c.Value
	switch {
	case v.Sign() < 0:
		return &Refusal{Limit: LimitValue, Reason: fmt.Sprintf("execution to %s: value %s is negative", c.To.Hex(), v)}
	case !t.Value:
		why := "the target does not allow value; give it value: {allowed: true, maxPerExecution: …}"
		if i < 0 {
			why = "targets: any never allows value; list the address with value: {allowed: true, maxPerExecution: …}"
		}
		return &Refusal{Limit: where("value"), Reason: fmt.Sprintf("execution to %s: value %s wei: %s", c.To.Hex(), v, why)}
	case t.MaxValue == nil || v.Cmp(t.MaxValue) > 0:
		return &Refusal{Limit: where("value.maxPerExecution"), Reason: fmt.Sprintf("execution to %s: value %s wei is above the target's cap %s wei (%s)",
			c.To.Hex(), v, orZero(t.MaxValue), where("value.maxPerExecution"))}
	case p.Value.MaxPerExecution != nil && v.Cmp(p.Value.MaxPerExecution) > 0:
		return &Refusal{Limit: LimitValue, Reason: fmt.Sprintf("execution to %s: value %s wei is above the cap per execution %s wei (%s)", c.To.Hex(), v, p.Value.MaxPerExecution, LimitValue)}
	case p.Value.MaxPerSession == nil || v.Cmp(p.Value.MaxPerSession) > 0:
		return &Refusal{Limit: LimitSessionValue, Reason: fmt.Sprintf("execution to %s: value %s wei is above the value one session may send, %s wei (%s)", c.To.Hex(), v, orZero(p.Value.MaxPerSession), LimitSessionValue)}
	case p.Value.MaxPerOwnerPerDay == nil || v.Cmp(p.Value.MaxPerOwnerPerDay) > 0:
		return &Refusal{Limit: LimitOwnerValue, Reason: fmt.Sprintf("execution to %s: value %s wei is above the value one owner may send per day, %s wei (%s)", c.To.Hex(), v, orZero(p.Value.MaxPerOwnerPerDay), LimitOwnerValue)}
	}
	return nil
}

// target finds to's entry: its index, or -1 under AnyTarget.
func (p Policy) target(to common.Address) (int, Target, bool) {
	for i, t := range p.Targets {
		if t.Address == to {
			return i, t, true
		}
	}
	if p.AnyTarget {
		return -1, AllowContract(to), true
	}
	return 0, Target{}, false
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

func budgetSource(limit string) string {
	if limit == LimitPermitGas {
		return "the SessionPermit's maxTotalGas, below the operator's " + LimitSessionGas
	}
	return LimitSessionGas + ", the operator's ceiling"
}
