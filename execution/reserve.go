package execution

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// OwnerDayTTL is how long an owner's day of reservations is kept after its
// last reservation: the day itself and two more (a retry late in a day
// still finds its reservation).
const OwnerDayTTL = 72 * time.Hour

// Day is the UTC day of t as the owner-day keys name it, YYYY-MM-DD.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// OwnerDayKey is the Redis key of an owner's reservations of one UTC day:
// xgr:{<owner>}:execday:<YYYY-MM-DD>, the owner in lower case.
func OwnerDayKey(s Scope, day string) string {
	return "xgr:{" + strings.ToLower(s.Owner.Hex()) + "}:execday:" + day
}

// Charge is what one execution reserves: its gas limit and its value, and
// the fee cap its worst-case spend is counted at (gas limit × MaxFeePerGas
// + value, as Policy.Cost).
type Charge struct {
	Gas          uint64
	Value        *big.Int // nil is 0
	MaxFeePerGas *big.Int // nil is 0
}

// Ceilings are the limits a Charge is reserved against, each with the
// Limit name a refusal by it gives.
type Ceilings struct {
	// SessionGas is the session's gas budget (Policy.Budget) and
	// SessionGasLimit its name (maxTotalGas or executions.maxSessionGas).
	SessionGas      uint64
	SessionGasLimit string
	// SessionValue caps the session's value (nil: no value).
	SessionValue *big.Int
	// OwnerDayGas, OwnerDayValue (nil: no value) and OwnerDaySpend (nil:
	// no cap) are the owner's limits per UTC day.
	OwnerDayGas   uint64
	OwnerDayValue *big.Int
	OwnerDaySpend *big.Int
}

// CeilingsOf is the policy's limits for s.
func (p Policy) CeilingsOf(s Scope) Ceilings {
	gas, limit := p.Budget(s)
	return Ceilings{SessionGas: gas, SessionGasLimit: limit, SessionValue: p.Value.MaxPerSession,
		OwnerDayGas: min(p.MaxGasPerOwnerPerDay, MaxGas), OwnerDayValue: p.Value.MaxPerOwnerPerDay, OwnerDaySpend: p.MaxSpendPerOwnerPerDay}
}

// ExecReservation is what ReserveExecution did.
type ExecReservation struct {
	// Gas and Value are the key's reservation: the one made now, or the
	// earlier one (Existed), which a retry sends. Day is the UTC day it
	// counts in.
	Gas   uint64
	Value *big.Int
	Day   string
	// Existed: the key held its session reservation already.
	Existed bool
	// Refusal is set when a limit refused: nothing stays reserved for the
	// key.
	Refusal *Refusal
}

// ReserveExecution reserves ch for key against the session's and the
// owner's day's limits, atomically per limit and once per key, in a fixed
// order: the session (lua/reserve_session.lua, under {<owner>:<session>}),
// then the owner's day (lua/reserve_owner_day.lua, under {<owner>}); the
// two keys are in different Cluster slots, so no one script can hold both.
// When the owner's day refuses, the session reservation is released again
// (lua/release_session.lua). A key reserved before gets its reservation
// back (its gas, value and day: a retry after midnight counts in the first
// try's day) and nothing more is counted; now picks the day of a new key.
func (b *Budget) ReserveExecution(ctx context.Context, s Scope, key string, now time.Time, ch Charge, lim Ceilings) (ExecReservation, error) {
	if ch.Gas == 0 || ch.Gas > MaxGas || lim.SessionGas > MaxGas || lim.OwnerDayGas > MaxGas {
		return ExecReservation{}, fmt.Errorf("execution: reserve %d gas of budgets of %d and %d: want 1 ≤ gas and all ≤ %d", ch.Gas, lim.SessionGas, lim.OwnerDayGas, uint64(MaxGas))
	}
	value, fee := orZero(ch.Value), orZero(ch.MaxFeePerGas)
	if value.Sign() < 0 || fee.Sign() < 0 {
		return ExecReservation{}, fmt.Errorf("execution: reserve a negative value %s or fee %s", value, fee)
	}
	sr, err := b.reserveSession(ctx, s, key, ch.Gas, lim.SessionGas, value, lim.SessionValue, Day(now))
	if err != nil {
		return ExecReservation{}, err
	}
	r := ExecReservation{Gas: sr.gas, Value: sr.value, Day: sr.day, Existed: sr.status == "exists"}
	switch sr.status {
	case "over-gas":
		r.Refusal = &Refusal{Limit: lim.SessionGasLimit, Reason: fmt.Sprintf("execution %q: its gas limit %d over the %d the session has reserved so far exceeds the session's gas budget %d (%s)",
			key, ch.Gas, sr.totalGas, lim.SessionGas, budgetSource(lim.SessionGasLimit))}
		return r, nil
	case "over-value":
		r.Refusal = &Refusal{Limit: LimitSessionValue, Reason: fmt.Sprintf("execution %q: its value %s wei over the %s wei the session has sent so far exceeds the session's value cap %s wei (%s)",
			key, value, sr.totalValue, orZero(lim.SessionValue), LimitSessionValue)}
		return r, nil
	}
	// A retry counts what its session reservation holds, in its day.
	spend := new(big.Int).Mul(new(big.Int).SetUint64(r.Gas), fee)
	spend.Add(spend, r.Value)
	status, totals, err := b.reserveOwnerDay(ctx, s, key, r.Day, r.Gas, r.Value, spend, lim)
	if err != nil {
		return ExecReservation{}, err
	}
	if !strings.HasPrefix(status, "over-") {
		return r, nil
	}
	switch status {
	case "over-gas":
		r.Refusal = &Refusal{Limit: LimitOwnerGas, Reason: fmt.Sprintf("execution %q: its gas limit %d over the %s the owner %s has reserved on %s exceeds the owner's gas per day %d (%s)",
			key, r.Gas, totals[0], s.Owner.Hex(), r.Day, lim.OwnerDayGas, LimitOwnerGas)}
	case "over-value":
		r.Refusal = &Refusal{Limit: LimitOwnerValue, Reason: fmt.Sprintf("execution %q: its value %s wei over the %s wei the owner %s has sent on %s exceeds the owner's value per day %s wei (%s)",
			key, r.Value, totals[1], s.Owner.Hex(), r.Day, orZero(lim.OwnerDayValue), LimitOwnerValue)}
	default:
		r.Refusal = &Refusal{Limit: LimitOwnerSpend, Reason: fmt.Sprintf("execution %q: its worst-case cost %s wei (gas limit × maxFeePerGas + value) over the %s wei the owner %s has reserved on %s exceeds the owner's spend per day %s wei (%s)",
			key, spend, totals[2], s.Owner.Hex(), r.Day, lim.OwnerDaySpend, LimitOwnerSpend)}
	}
	if err := b.releaseSession(ctx, s, key); err != nil {
		return ExecReservation{}, err
	}
	return r, nil
}

type sessionReservation struct {
	status            string
	gas, totalGas     uint64
	value, totalValue *big.Int
	day               string
}

func (b *Budget) reserveSession(ctx context.Context, s Scope, key string, gas, budget uint64, value, valueCap *big.Int, day string) (sessionReservation, error) {
	res, err := scriptReserveSession.Run(ctx, b.rdb, []string{BudgetKey(s)}, key, strconv.FormatUint(gas, 10), strconv.FormatUint(budget, 10),
		orZero(value).String(), orZero(valueCap).String(), day, strconv.FormatInt(b.ttl.Milliseconds(), 10)).StringSlice()
	if err != nil {
		return sessionReservation{}, fmt.Errorf("execution: reserve gas for %q: %w", key, err)
	}
	bad := func() (sessionReservation, error) {
		return sessionReservation{}, fmt.Errorf("execution: reserve gas for %q: unexpected reply %q", key, res)
	}
	if len(res) != 6 {
		return bad()
	}
	r := sessionReservation{status: res[0], day: res[5]}
	var ok1, ok2 bool
	r.value, ok1 = new(big.Int).SetString(res[3], 10)
	r.totalValue, ok2 = new(big.Int).SetString(res[4], 10)
	if r.gas, err = strconv.ParseUint(res[1], 10, 64); err == nil {
		r.totalGas, err = strconv.ParseUint(res[2], 10, 64)
	}
	if err != nil || !ok1 || !ok2 {
		return bad()
	}
	return r, nil
}

func (b *Budget) releaseSession(ctx context.Context, s Scope, key string) error {
	if err := scriptReleaseSession.Run(ctx, b.rdb, []string{BudgetKey(s)}, key).Err(); err != nil {
		return fmt.Errorf("execution: release the session reservation of %q: %w", key, err)
	}
	return nil
}

func (b *Budget) reserveOwnerDay(ctx context.Context, s Scope, key, day string, gas uint64, value, spend *big.Int, lim Ceilings) (string, []string, error) {
	spendCap := ""
	if lim.OwnerDaySpend != nil {
		spendCap = lim.OwnerDaySpend.String()
	}
	res, err := scriptReserveOwnerDay.Run(ctx, b.rdb, []string{OwnerDayKey(s, day)}, key, strconv.FormatUint(gas, 10), value.String(), spend.String(),
		strconv.FormatUint(lim.OwnerDayGas, 10), orZero(lim.OwnerDayValue).String(), spendCap, strconv.FormatInt(OwnerDayTTL.Milliseconds(), 10)).StringSlice()
	if err != nil {
		return "", nil, fmt.Errorf("execution: reserve the owner's day for %q: %w", key, err)
	}
	if len(res) != 4 {
		return "", nil, fmt.Errorf("execution: reserve the owner's day for %q: unexpected reply %q", key, res)
	}
	return res[0], res[1:], nil
}

// OwnerDayUsage is what an owner has reserved in one UTC day.
type OwnerDayUsage struct {
	Gas   uint64
	Value *big.Int
	Spend *big.Int
}

// OwnerDay reads what s.Owner has reserved on day (zero for a day without
// executions or one that expired).
func (b *Budget) OwnerDay(ctx context.Context, s Scope, day string) (OwnerDayUsage, error) {
	u := OwnerDayUsage{Value: new(big.Int), Spend: new(big.Int)}
	h, err := b.rdb.HMGet(ctx, OwnerDayKey(s, day), "gas", "value", "spend").Result()
	if err != nil && err != redis.Nil {
		return u, fmt.Errorf("execution: read the owner's day %s: %w", day, err)
	}
	if v, ok := h[0].(string); ok {
		u.Gas, _ = strconv.ParseUint(v, 10, 64)
	}
	if v, ok := h[1].(string); ok {
		u.Value.SetString(v, 10)
	}
	if v, ok := h[2].(string); ok {
		u.Spend.SetString(v, 10)
	}
	return u, nil
}
