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

//go:embed lua/*.lua lua/lib/*.lua
var luaFS embed.FS

var (
	scripts               = luascript.New("execution", luaFS, "lua/lib/decimal.lua")
	scriptReserveSession  = scripts.Load("reserve_session")
	scriptReleaseSession  = scripts.Load("release_session")
	scriptReserveOwnerDay = scripts.Load("reserve_owner_day")
)

// Budget keeps what executions reserve in Redis: each session's gas and
// value in one hash under the session's own hash tag ({<owner>:<session>},
// as joinstore's session keys, so on a cluster it shares their slot), and
// each owner's gas, value and worst-case spend per UTC day in one hash
// under the owner's tag ({<owner>}). Reservations are made by the scripts
// in lua/, atomically and once per idempotency key. Safe for concurrent
// use.
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
	sr, err := b.reserveSession(ctx, s, key, gas, budget, nil, nil, Day(time.Now()))
	if err != nil {
		return Reservation{}, err
	}
	return Reservation{Gas: sr.gas, Total: sr.totalGas, Existed: sr.status == "exists", Over: sr.status == "over-gas"}, nil
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
