package indexstore

import (
	"context"
	"embed"
	"fmt"

	"github.com/redis/go-redis/v9"
)

//go:embed lua/*.lua
var luaFS embed.FS

// load returns the transition lua/<name>.lua. The index's transitions use
// no clock and format no numbers, so unlike the session store's they need
// no prelude.
func load(name string) *redis.Script {
	src, err := luaFS.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic("indexstore: missing script lua/" + name + ".lua")
	}
	return redis.NewScript(string(src))
}

// The transitions. go-redis runs them with EVALSHA and loads them on NOSCRIPT.
var (
	scriptCommit  = load("commit")
	scriptRewind  = load("rewind")
	scriptLease   = load("lease")
	scriptUnlease = load("unlease")
)

// Preload loads the index's scripts into the server's script cache (on
// every master of a cluster), so that the first commit and the first
// rewind are one EVALSHA round trip each. Scripts are also reloaded on
// NOSCRIPT, so this is optional.
func (x *Index) Preload(ctx context.Context) error {
	for _, sc := range []*redis.Script{scriptCommit, scriptRewind, scriptLease, scriptUnlease} {
		if err := sc.Load(ctx, x.rdb).Err(); err != nil {
			return fmt.Errorf("load index script: %w", err)
		}
	}
	return nil
}
