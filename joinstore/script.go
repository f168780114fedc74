package joinstore

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
// (internal/luascript) before it.
var scripts = luascript.New("joinstore", luaFS)

// load returns the transition lua/<name>.lua, with the prelude before it.
func load(name string) *redis.Script { return scripts.Load(name) }

// The transitions. go-redis runs them with EVALSHA and loads them on NOSCRIPT.
var (
	scriptAllocRoot    = scripts.LoadWith("alloc_root", "lua/lib/root_seq.lua", "lua/lib/slots.lua")
	scriptNextRoot     = scripts.LoadWith("next_root", "lua/lib/root_seq.lua")
	scriptStartSession = load("start_session")
	scriptClaim        = scripts.LoadWith("claim", "lua/lib/declared.lua")
	scriptRenewLease   = load("renew_lease")
	scriptReleaseLease = scripts.LoadWith("release_lease", "lua/lib/expire_records.lua")
	scriptCommitStep   = scripts.LoadWith("commit_step", "lua/lib/declared.lua", "lua/lib/join_decide.lua")
	scriptJoinLock     = load("join_lock")
	scriptJoinApply    = load("join_apply")
	scriptJoinUnlock   = load("join_unlock")
	scriptKill         = scripts.LoadWith("kill", "lua/lib/expire_records.lua")
	scriptKillSession  = load("kill_session")
	scriptPause        = load("pause")
	scriptWakeApply    = load("wake_apply")
	scriptWakeDone     = load("wake_done")
	scriptAcquireRoot  = load("acquire_root")
	scriptAdoptRoot    = load("adopt_root")
	scriptReleaseRoot  = load("release_root")
	scriptPurgeOwner   = load("purge_owner")
	scriptForgetRoot   = scripts.LoadWith("forget_root", "lua/lib/expire_records.lua")
	scriptBeginExec    = load("begin_exec")
	scriptResumeExec   = load("resume_exec")
	scriptStall        = load("stall")
	scriptUnstall      = load("unstall")
	scriptGrantSlots   = scripts.LoadWith("grant_slots", "lua/lib/slots.lua")
	scriptMeterSession = load("meter_session")
	scriptMeterExec    = load("meter_exec")
)

var allScripts = []*redis.Script{
	scriptAllocRoot, scriptNextRoot, scriptStartSession, scriptClaim, scriptRenewLease, scriptReleaseLease, scriptCommitStep,
	scriptJoinLock, scriptJoinApply, scriptJoinUnlock, scriptKill, scriptKillSession, scriptPause, scriptWakeApply, scriptWakeDone, scriptAcquireRoot, scriptAdoptRoot, scriptReleaseRoot,
	scriptPurgeOwner, scriptForgetRoot, scriptBeginExec, scriptResumeExec, scriptStall, scriptUnstall, scriptGrantSlots, scriptMeterSession, scriptMeterExec,
}

// Preload loads every script into the server's script cache (on every master
// of a cluster), so that the first use of each transition is one EVALSHA
// round trip. Scripts are also reloaded on NOSCRIPT, so this is optional.
func (s *Store) Preload(ctx context.Context) error {
	for _, sc := range allScripts {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return fmt.Errorf("load script: %w", err)
		}
	}
	return nil
}
