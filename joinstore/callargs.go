package joinstore

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// A transition's EVALSHA is sent as one argument vector ("evalsha", hash,
// number of keys, keys, arguments) built by the caller, instead of through
// redis.Script, which copies the keys into a fresh vector and boxes each
// one. The hot path (a step's commit) takes its session's fixed keys
// boxed once per session (sessionKeys) and its own keys from the claim,
// so that a plain step allocates for what changes, not for every name.

// sessionKeys are the fixed keys of one session, named and boxed as script
// arguments once and shared by every claim of the session.
type sessionKeys struct {
	keys
	meta, run, due, steps, targets, jpend, wq any
	// rootGroup is g:0 (the root group's members) and noQueue jq:0 (the
	// placeholder queue of a group without a target).
	rootGroup, noQueue any
}

func newSessionKeys(r Root) *sessionKeys {
	k := keysOf(r)
	return &sessionKeys{keys: k, meta: k.meta(), run: k.run(), due: k.due(), steps: k.steps(), targets: k.targets(),
		jpend: k.jpend(), wq: k.wq(), rootGroup: k.group("0"), noQueue: k.joinQueue(0)}
}

// sessionKeys returns the claim's session keys, made now when the claim
// carries none (a claim built outside the store).
func (c *Claim) sessionKeys() *sessionKeys {
	if c.keys == nil || c.keys.prefix == "" {
		return newSessionKeys(c.Root)
	}
	return c.keys
}

// groupKey is the member hash of group id, boxed (the root group's shared).
func (sk *sessionKeys) groupKey(id string) any {
	if id == "0" {
		return sk.rootGroup
	}
	return sk.group(id)
}

// evalArgv runs the script call argv (argv[1] is script's hash), through
// the shared pipelines when the store batches; a Redis that lost its
// script cache gets the script loaded again and the call repeated, and one
// a migrating slot refused is sent again (refused.go).
func (s *Store) evalArgv(ctx context.Context, script *redis.Script, argv []any) *redis.Cmd {
	if s.batch != nil {
		return s.batch.evalArgv(ctx, script, argv)
	}
	return runUntilRun(ctx, func() *redis.Cmd { return runArgv(ctx, s.rdb, script, argv) })
}

// runArgv sends argv alone, loading script when Redis does not have it.
func runArgv(ctx context.Context, rdb redis.UniversalClient, script *redis.Script, argv []any) *redis.Cmd {
	cmd := argvCmd(ctx, argv)
	_ = rdb.Process(ctx, cmd)
	if noScript(cmd.Err()) {
		if err := script.Load(ctx, rdb).Err(); err != nil {
			cmd.SetErr(err)
			return cmd
		}
		cmd = argvCmd(ctx, argv)
		_ = rdb.Process(ctx, cmd)
	}
	return cmd
}

// argvCmd is the command of argv, routed (Cluster) by its first key.
func argvCmd(ctx context.Context, argv []any) *redis.Cmd {
	cmd := redis.NewCmd(ctx, argv...)
	if n, _ := argv[2].(int); n > 0 {
		cmd.SetFirstKeyPos(3)
	}
	return cmd
}

func noScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

// commitStepHash is commit_step's hash, boxed once.
var commitStepHash any = scriptCommitStep.Hash()

// scriptArgv starts the argument vector of a call of the script whose
// (boxed) hash is hash, with nkeys keys and room for size more values.
func scriptArgv(hash any, nkeys, size int) []any {
	argv := make([]any, 0, 3+size)
	return append(argv, "evalsha", hash, nkeys)
}

// The layout of commit_step's call (lua/commit_step.lua): its fixed keys
// (then two per child and three per join target it creates), its fixed
// arguments, and the arguments per child.
const (
	commitKeys      = 12
	commitArgs      = 22
	commitChildArgs = 12
)

// statusArg is a commit's status as a constant argument (no allocation).
func statusArg(status string) any {
	switch status {
	case "done":
		return "done"
	case "aborted":
		return "aborted"
	}
	return status
}

// sealedArg is Commit.Sealed as commit_step's ARGV[20].
func sealedArg(sealed bool) any {
	if sealed {
		return "1"
	}
	return ""
}
