package execution

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/luascript"
)

//go:embed lua/*.lua
var luaFS embed.FS

var scriptReserveGas = luascript.New("execution", luaFS).Load("reserve_gas")

// Budget keeps each session's reserved execution gas in Redis: one hash
// per session, under the session's own hash tag ({<owner>:<session>}, as
// joinstore's session keys), so on a cluster it shares their slot.
// Reservations are made by lua/reserve_gas.lua, atomically and once per
// idempotency key. Safe for concurrent use.
type Budget struct {
	rdb redis.UniversalClient
	ttl time.Duration
}

// NewBudget keeps budgets in rdb; a session's hash expires ttl after its
// last reservation (0 keeps it). Keep ttl at least as long as the
// transaction manager keeps records (a key retried after its reservation
// expired is reserved again).
func NewBudget(rdb redis.UniversalClient, ttl time.Duration) *Budget {
	return &Budget{rdb: rdb, ttl: ttl}
}

// BudgetKey is the Redis key of a session's gas budget:
// xgr:{<owner>:<session>}:execgas, the owner in lower case.
func BudgetKey(s Scope) string {
	return "xgr:{" + strings.ToLower(s.Owner.Hex()) + ":" + strconv.FormatUint(s.Session, 10) + "}:execgas"
}

// Reservation is what Reserve did.
type Reservation struct {
	// Gas is the key's reservation: the one made now, or the earlier one
	// (Existed). With Over it is the gas that did not fit.
	Gas uint64
	// Total is the session's reserved gas after the call.
	Total uint64
	// Existed: key held a reservation already; nothing changed.
	Existed bool
	// Over: gas did not fit into budget; nothing changed.
	Over bool
}

// Reserve reserves gas for key against the session's budget (both at most
// MaxGas). It is idempotent per key: a key reserved before gets its
// reservation back (Existed) and nothing is added, whatever gas says now.
func (b *Budget) Reserve(ctx context.Context, s Scope, key string, gas, budget uint64) (Reservation, error) {
	if gas == 0 || gas > MaxGas || budget > MaxGas {
		return Reservation{}, fmt.Errorf("execution: reserve %d gas of a budget of %d: want 1 ≤ gas and both ≤ %d", gas, budget, uint64(MaxGas))
	}
	res, err := scriptReserveGas.Run(ctx, b.rdb, []string{BudgetKey(s)}, key,
		strconv.FormatUint(gas, 10), strconv.FormatUint(budget, 10), strconv.FormatInt(b.ttl.Milliseconds(), 10)).StringSlice()
	if err != nil {
		return Reservation{}, fmt.Errorf("execution: reserve gas for %q: %w", key, err)
	}
	if len(res) != 3 {
		return Reservation{}, fmt.Errorf("execution: reserve gas for %q: unexpected reply %q", key, res)
	}
	r := Reservation{Existed: res[0] == "exists", Over: res[0] == "over"}
	if r.Gas, err = strconv.ParseUint(res[1], 10, 64); err == nil {
		r.Total, err = strconv.ParseUint(res[2], 10, 64)
	}
	if err != nil {
		return Reservation{}, fmt.Errorf("execution: reserve gas for %q: reply %q: %w", key, res, err)
	}
	return r, nil
}

// Reserved reads the session's reserved gas (0 for a session without
// executions).
func (b *Budget) Reserved(ctx context.Context, s Scope) (uint64, error) {
	v, err := b.rdb.HGet(ctx, BudgetKey(s), "total").Result()
	if err == redis.Nil {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("execution: read the gas budget of session %d: %w", s.Session, err)
	}
	return strconv.ParseUint(v, 10, 64)
}
