package txmanager

import (
	"context"
	"embed"
	"fmt"

	"github.com/redis/go-redis/v9"
)

//go:embed lua/*.lua lua/lib/*.lua
var luaFS embed.FS

// prelude is lua/lib/clock.lua and lua/lib/fence.lua: the clock, number
// formatting and the lease check that transitions share (Redis scripts
// cannot load one another).
var prelude = mustRead("lua/lib/clock.lua") + mustRead("lua/lib/fence.lua")

func mustRead(path string) string {
	src, err := luaFS.ReadFile(path)
	if err != nil {
		panic("txmanager: missing script " + path)
	}
	return string(src)
}

// load returns the transition lua/<name>.lua with the prelude before it.
func load(name string) *redis.Script {
	return redis.NewScript(prelude + mustRead("lua/"+name+".lua"))
}

// The transitions, one atomic step each; go-redis runs them with EVALSHA
// and loads them on NOSCRIPT.
var (
	scriptSubmit    = load("submit")
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
)

var allScripts = []*redis.Script{
	scriptSubmit, scriptRecord, scriptPromote, scriptLease, scriptRelease, scriptSyncNonce,
	scriptAttempt, scriptSettle, scriptUnmine, scriptLose, scriptFill,
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
