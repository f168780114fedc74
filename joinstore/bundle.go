package joinstore

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/luascript"
)

// BundleWrite is a record that a commit writes with the step, atomically:
// a step's log bundle (package evidence prepares it). Key must carry the
// session's hash tag ({<owner>:<rootPid>}) so that it is in the session's
// Cluster slot; Fields are its field/value pairs. The record is written
// once (never over an existing key), with TTL, if and only if the commit
// applies: a commit fenced off (lease lost or expired) or failed leaves
// none, and a commit that applied always has it — both go to Redis in one
// MULTI/EXEC (bundle_stage.lua, commit_step.lua, bundle_settle.lua), so
// no crash of the replica or cut of its connection can separate them.
// The kept record gets the field status (done or aborted) and, for an
// aborted process, abortReason, as the commit recorded them.
type BundleWrite struct {
	Key    string
	TTL    time.Duration
	Fields []any
	// Before, when set, queues commands that go first in the same
	// transaction (the bundle's grants, grant.Store.QueueTx): they apply
	// whether or not the commit does. On a single Redis server only (they
	// are in other Cluster slots); their failures are in
	// CommitResult.BundleErr.
	Before func(redis.Pipeliner) error
}

// The two halves around commit_step. They run with EVAL (their text each
// time, no prelude: they need no clock), so that neither can fail with
// NOSCRIPT while the commit between them applies.
var (
	scriptBundleStage  = rawScript("bundle_stage")
	scriptBundleSettle = rawScript("bundle_settle")
)

func rawScript(name string) *redis.Script {
	src, err := fs.ReadFile(luaFS, "lua/"+name+".lua")
	if err != nil {
		panic("joinstore: missing script " + name)
	}
	// Sent whole with every commit: without its comment lines.
	return redis.NewScript(luascript.Compact(string(src)))
}

// bundleOutcome is what the settle half read.
type bundleOutcome struct {
	stored bool
	steps  int64
	// before is the first error of Before's commands.
	before error
}

// checkBundle refuses a record outside the session's slot or without a
// lifetime.
func checkBundle(root Root, b *BundleWrite) error {
	switch {
	case !strings.Contains(b.Key, "{"+root.String()+"}"):
		return fmt.Errorf("bundle key %q: want the session's hash tag {%s}", b.Key, root)
	case b.TTL <= 0:
		return fmt.Errorf("bundle %s: TTL %s: want a positive lifetime", b.Key, b.TTL)
	case len(b.Fields) == 0 || len(b.Fields)%2 != 0:
		return fmt.Errorf("bundle %s: %d field values: want field/value pairs", b.Key, len(b.Fields))
	}
	return nil
}

// checkBefore refuses commands of other slots in a Cluster's transaction.
func checkBefore(rdb redis.UniversalClient, b *BundleWrite) error {
	if _, ok := rdb.(*redis.ClusterClient); ok && b.Before != nil {
		return fmt.Errorf("bundle %s: commands before it in the commit's transaction need one Redis server, not a Cluster (write them first)", b.Key)
	}
	return nil
}

// commitRun runs the commit: alone (or with its join lock, commitEval),
// or, with a bundle, in one MULTI/EXEC with the bundle's two halves (a
// bundled commit takes no join lock along: the machine has its joins
// decided in the commit, Commit.DecideJoin).
func (s *Store) commitRun(ctx context.Context, c Claim, r Commit, argv []any) ([]any, *JoinLock, bundleOutcome, error) {
	if r.Bundle == nil {
		vals, lock, err := s.commitEval(ctx, c, r, argv)
		return vals, lock, bundleOutcome{}, err
	}
	if r.LockTarget > 0 {
		return nil, nil, bundleOutcome{}, fmt.Errorf("bundle %s: a bundled commit takes no join lock along (LockTarget)", r.Bundle.Key)
	}
	if err := checkBundle(c.Root, r.Bundle); err != nil {
		return nil, nil, bundleOutcome{}, err
	}
	if err := checkBefore(s.rdb, r.Bundle); err != nil {
		return nil, nil, bundleOutcome{}, err
	}
	k := keysOf(c.Root)
	b := r.Bundle
	token := strconv.FormatInt(c.Token, 10)
	stageArgs := append([]any{token, b.TTL.Milliseconds()}, b.Fields...)
	for try := 0; ; try++ {
		var stage, commit, settle *redis.Cmd
		var beforeErr error
		nBefore := 0
		cmds, txErr := s.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			if b.Before != nil {
				if beforeErr = b.Before(pipe); beforeErr != nil {
					return beforeErr
				}
				nBefore = pipe.Len()
			}
			stage = scriptBundleStage.Eval(ctx, pipe, []string{b.Key, k.proc(c.Iter)}, stageArgs...)
			commit = argvCmd(ctx, argv)
			_ = pipe.Process(ctx, commit)
			settle = scriptBundleSettle.Eval(ctx, pipe, []string{b.Key, k.proc(c.Iter), k.meta()}, token)
			return nil
		})
		if beforeErr != nil {
			// Nothing was sent.
			return nil, nil, bundleOutcome{}, fmt.Errorf("bundle %s: %w", b.Key, beforeErr)
		}
		var out bundleOutcome
		for i := 0; i < nBefore && i < len(cmds); i++ {
			if err := cmds[i].Err(); err != nil && err != redis.Nil {
				out.before = err
				break
			}
		}
		_ = txErr // each command's own result is read below
		if v, err := settle.Slice(); err == nil && len(v) == 2 {
			n, _ := v[0].(int64)
			out.stored = n == 1
			out.steps, _ = v[1].(int64)
		}
		vals, err := commit.Slice()
		if err != nil {
			// Nothing was committed, so settle kept no bundle.
			if try == 0 && strings.HasPrefix(err.Error(), "NOSCRIPT") {
				if lerr := s.loadCommitScripts(ctx); lerr != nil {
					return nil, nil, bundleOutcome{}, lerr
				}
				continue
			}
			if stage.Err() != nil && stage.Err() != redis.Nil {
				err = fmt.Errorf("%w (bundle: %v)", err, stage.Err())
			}
			return nil, nil, bundleOutcome{}, err
		}
		return vals, nil, out, nil
	}
}

// loadCommitScripts loads commit_step, which a bundled commit runs with EVALSHA (on
// every master of a Cluster).
func (s *Store) loadCommitScripts(ctx context.Context) error {
	load := func(ctx context.Context, c redis.Scripter) error {
		if err := scriptCommitStep.Load(ctx, c).Err(); err != nil {
			return fmt.Errorf("load commit_step: %w", err)
		}
		return nil
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return load(ctx, c) })
	}
	return load(ctx, s.rdb)
}
