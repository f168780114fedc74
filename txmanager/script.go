package txmanager

import (
	"context"
	"embed"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/luascript"
)

//go:embed lua/*.lua lua/lib/*.lua
var luaFS embed.FS

// scripts are the transitions, each with the shared clock prelude
// (internal/luascript) and lua/lib/fence.lua (the lease check) before it.
var scripts = luascript.New("txmanager", luaFS, "lua/lib/fence.lua")

// load returns the transition lua/<name>.lua with the prelude before it.
func load(name string) *redis.Script { return scripts.Load(name) }

// The transitions, one atomic step each; go-redis runs them with EVALSHA
// and loads them on NOSCRIPT.
var (
	scriptRecord    = load("record")
	scriptPromote   = load("promote")
	scriptLease     = load("lease")
	scriptRelease   = load("release")
	scriptSyncNonce = load("sync_nonce")
	scriptAttempt   = load("attempt")
	scriptSettle    = load("settle")
	scriptUnmine    = load("unmine")
	scriptLose      = load("lose")
	scriptFill      = load("fill")
	scriptFail      = load("fail")
	// The transitions that list or adopt unclaimed chain transactions
	// share lua/lib/unclaimed.lua (reconcile.go).
	scriptSubmit        = scripts.LoadWith("submit", unclaimedLib)
	scriptReconcile     = scripts.LoadWith("reconcile", unclaimedLib)
	scriptAdoptQueued   = scripts.LoadWith("adopt_queued", unclaimedLib)
	scriptDropUnclaimed = scripts.LoadWith("drop_unclaimed", unclaimedLib)
	scriptReopen        = load("reopen")
	scriptResign        = load("resign")
)

const unclaimedLib = "lua/lib/unclaimed.lua"

var allScripts = []*redis.Script{
	scriptSubmit, scriptRecord, scriptPromote, scriptLease, scriptRelease, scriptSyncNonce,
	scriptAttempt, scriptSettle, scriptUnmine, scriptLose, scriptFill, scriptFail,
	scriptReconcile, scriptAdoptQueued, scriptDropUnclaimed,
	scriptReopen, scriptResign,
}

// Preload loads every transition into the server's script cache (on every
// master of a cluster), so that the first use of each is one EVALSHA round
// trip. Scripts are also loaded on NOSCRIPT, so this is optional.
func Preload(ctx context.Context, rdb redis.UniversalClient) error {
	for _, sc := range allScripts {
		if err := sc.Load(ctx, rdb).Err(); err != nil {
			return fmt.Errorf("txmanager: load script: %w", err)
		}
	}
	return nil
}
