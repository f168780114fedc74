package joinstore

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// batcher sends the transitions of many sessions to Redis in shared
// pipelines: whatever scripts (and groups of plain commands, such as a
// session's opening reads) are waiting when a pipeline slot frees go out
// together, as one round trip (Redis Cluster: one per master). Transitions
// of one session are never concurrent (a root actor has at most one
// outstanding), so batching reorders nothing that is ordered; each script
// is still atomic on its own, and an error of one leaves the others alone.
type batcher struct {
	rdb  redis.UniversalClient
	reqs chan *evalReq
}

// evalReq is one caller's part of a shared pipeline: a script (script,
// keys, args; its reply in cmd) or a group of commands that group adds to
// the pipeline (their replies in cmds, err the first of their errors).
type evalReq struct {
	script *redis.Script
	keys   []string
	args   []any
	argv   []any // instead of keys and args: the whole call (Store.evalArgv)
	cmd    *redis.Cmd

	group func(redis.Pipeliner)
	cmds  []redis.Cmder
	err   error

	done chan struct{} // one value when the replies are in
}

// reqPool keeps evalReqs (and their done channels) for the next calls: one
// allocation fewer per transition than a fresh request and channel.
var reqPool = sync.Pool{New: func() any { return &evalReq{done: make(chan struct{}, 1)} }}

func getReq() *evalReq { return reqPool.Get().(*evalReq) }

// putReq returns r to the pool once its caller has taken its results.
func putReq(r *evalReq) {
	done := r.done
	*r = evalReq{done: done}
	reqPool.Put(r)
}

// DefaultBatch is the number of shared pipelines in flight that a replica
// uses (Config.Batch): several keep Redis busy while the client reads one
// batch's replies and writes the next. Four measured steadier and a little
// faster than two once sessions start in one round trip (chain10, 32
// sessions at once: 17.5k–19.3k against 14.3k–19.9k steps/s, interleaved;
// docs/performance.md).
const DefaultBatch = 4

// maxBatch bounds one pipeline: large enough to carry a replica's whole
// burst, small enough that one slow batch delays little.
const maxBatch = 128

func newBatcher(rdb redis.UniversalClient, workers int) *batcher {
	b := &batcher{rdb: rdb, reqs: make(chan *evalReq, 4*maxBatch)}
	for i := 0; i < workers; i++ {
		go b.loop()
	}
	return b
}

// eval runs script through a shared pipeline and waits for its reply.
func (b *batcher) eval(ctx context.Context, script *redis.Script, keys []string, args ...any) *redis.Cmd {
	r := getReq()
	r.script, r.keys, r.args = script, keys, args
	return b.reply(ctx, r)
}

// evalArgv runs the script call argv through a shared pipeline and waits
// for its reply.
func (b *batcher) evalArgv(ctx context.Context, script *redis.Script, argv []any) *redis.Cmd {
	r := getReq()
	r.script, r.argv = script, argv
	return b.reply(ctx, r)
}

// reply sends the script call r and returns its reply (an error reply when
// ctx ended before it was queued); r goes back to the pool.
func (b *batcher) reply(ctx context.Context, r *evalReq) *redis.Cmd {
	defer putReq(r)
	if err := b.send(ctx, r); err != nil {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	return r.cmd
}

// pipelined adds the commands of fn to a shared pipeline and waits for
// their replies: it returns them in the order fn added them, and the first
// of their errors (as Pipeline.Exec does for a pipeline of its own).
func (b *batcher) pipelined(ctx context.Context, fn func(redis.Pipeliner)) ([]redis.Cmder, error) {
	r := getReq()
	r.group = fn
	if err := b.send(ctx, r); err != nil {
		putReq(r)
		return nil, err
	}
	cmds, err := r.cmds, r.err
	putReq(r)
	return cmds, err
}

func (b *batcher) send(ctx context.Context, r *evalReq) error {
	select {
	case b.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	<-r.done
	return nil
}

func (b *batcher) loop() {
	ctx := context.Background()
	batch := make([]*evalReq, 0, maxBatch)
	for r := range b.reqs {
		batch = append(batch[:0], r)
		// The actors the last replies made runnable get to queue their
		// next transitions first, so that they join this pipeline.
		runtime.Gosched()
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		b.run(ctx, batch)
	}
}

func (b *batcher) run(ctx context.Context, batch []*evalReq) {
	if len(batch) == 1 && batch[0].group == nil {
		r := batch[0]
		if r.cmd = b.runAlone(ctx, r); refused(r.cmd.Err()) {
			go b.resend(ctx, r)
			return
		}
		r.done <- struct{}{}
		return
	}
	pipe := b.rdb.Pipeline()
	ends := make([]int, len(batch))
	for i, r := range batch {
		switch {
		case r.group != nil:
			r.group(pipe)
		case r.argv != nil:
			r.cmd = argvCmd(ctx, r.argv)
			_ = pipe.Process(ctx, r.cmd)
		default:
			r.cmd = pipe.EvalSha(ctx, r.script.Hash(), r.keys, r.args...)
		}
		ends[i] = pipe.Len()
	}
	cmds := sendOnce(ctx, b.rdb, pipe) // every command, each with its reply or error
	start := 0
	for i, r := range batch {
		from := start
		start = ends[i]
		if r.group != nil {
			r.cmds = cmds[from:ends[i]:ends[i]]
			if anyRefused(r.cmds) {
				go b.resendGroup(ctx, r)
				continue
			}
			r.err = firstErr(r.cmds)
			r.done <- struct{}{}
			continue
		}
		if err := r.cmd.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			// A Redis that lost its script cache (a restart, a failover):
			// this run loads the script again.
			r.cmd = b.runAlone(ctx, r)
		}
		if refused(r.cmd.Err()) {
			go b.resend(ctx, r)
			continue
		}
		r.done <- struct{}{}
	}
}

// runAlone runs the script call r on its own, loading the script when
// Redis lacks it.
func (b *batcher) runAlone(ctx context.Context, r *evalReq) *redis.Cmd {
	if r.argv != nil {
		return runArgv(ctx, b.rdb, r.script, r.argv)
	}
	return r.script.Run(ctx, b.rdb, r.keys, r.args...)
}

// resend sends the script call r, which a migrating slot refused, again on
// its own (off the batch worker, which goes on with the next batch) until
// it runs or the retry budget is spent (whileRefused), then hands r its
// reply.
func (b *batcher) resend(ctx context.Context, r *evalReq) {
	r.cmd = runUntilRun(ctx, func() *redis.Cmd { return b.runAlone(ctx, r) })
	r.done <- struct{}{}
}

// resendGroup sends each command of the group r that a migrating slot
// refused again on its own until it runs (or stays refused for the whole
// retry budget), then hands r its replies.
func (b *batcher) resendGroup(ctx context.Context, r *evalReq) {
	resendRefused(ctx, b.rdb, r.cmds)
	r.err = firstErr(r.cmds)
	r.done <- struct{}{}
}

// sendOnce executes pipe and returns its commands, each with its reply or
// error. On a Redis Cluster every command goes to one node at most once
// per attempt: go-redis still follows each command's MOVED and ASK, but it
// does not send a node's whole share of the pipeline again when the first
// command of that share failed retryably (TRYAGAIN, a lost connection).
// That resend repeated scripts that had run, and while a slot migrates it
// sent a command that had been answered ASK to both masters at once (two
// executions of one transition, and a data race on its reply in go-redis
// v9.23's processPipeline). What a migrating slot refused comes back to
// the batcher as its error, and the batcher sends it again (refused).
func sendOnce(ctx context.Context, rdb redis.UniversalClient, pipe redis.Pipeliner) []redis.Cmder {
	if _, cluster := rdb.(*redis.ClusterClient); !cluster {
		cmds, _ := pipe.Exec(ctx)
		return cmds
	}
	queued := append([]redis.Cmder(nil), pipe.Cmds()...)
	pipe.Discard()
	for _, c := range queued {
		_ = pipe.Process(ctx, noResend{c})
	}
	_, _ = pipe.Exec(ctx)
	return queued
}

// noResend is a command go-redis must not send again on its own
// (Cmder.NoRetry): it still follows MOVED and ASK.
type noResend struct{ redis.Cmder }

func (noResend) NoRetry() bool { return true }

// firstErr is the first error of cmds, as Pipeline.Exec reports it.
func firstErr(cmds []redis.Cmder) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}
