package joinstore

import (
	"context"
	"runtime"
	"strings"

	"github.com/redis/go-redis/v9"
)

// batcher sends the transitions of many sessions to Redis in shared
// pipelines: whatever scripts are waiting when a pipeline slot frees go out
// together, as one round trip (Redis Cluster: one per master). Transitions
// of one session are never concurrent (a root actor has at most one
// outstanding), so batching reorders nothing that is ordered; each script
// is still atomic on its own, and an error of one leaves the others alone.
type batcher struct {
	rdb  redis.UniversalClient
	reqs chan *evalReq
}

type evalReq struct {
	script *redis.Script
	keys   []string
	args   []any
	cmd    *redis.Cmd
	done   chan struct{}
}

// DefaultBatch is the number of shared pipelines in flight that a replica
// uses (Config.Batch): two keep Redis busy while the client reads one
// batch's replies and writes the next.
const DefaultBatch = 2

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
	r := &evalReq{script: script, keys: keys, args: args, done: make(chan struct{})}
	select {
	case b.reqs <- r:
	case <-ctx.Done():
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(ctx.Err())
		return cmd
	}
	<-r.done
	return r.cmd
}

func (b *batcher) loop() {
	ctx := context.Background()
	batch := make([]*evalReq, 0, maxBatch)
	for r := range b.reqs {
		batch = append(batch[:0], r)
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
	if len(batch) == 1 {
		r := batch[0]
		r.cmd = r.script.Run(ctx, b.rdb, r.keys, r.args...)
		close(r.done)
		return
	}
	pipe := b.rdb.Pipeline()
	for _, r := range batch {
		r.cmd = pipe.EvalSha(ctx, r.script.Hash(), r.keys, r.args...)
	}
	_, _ = pipe.Exec(ctx)
	for _, r := range batch {
		if err := r.cmd.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			// A Redis that lost its script cache (a restart, a failover):
			// this run loads the script again.
			r.cmd = r.script.Run(ctx, b.rdb, r.keys, r.args...)
		}
		close(r.done)
	}
}
