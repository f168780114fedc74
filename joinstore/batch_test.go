package joinstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// echoScript returns its argument, or fails when the argument is "fail".
var echoScript = redis.NewScript(`if ARGV[1] == "fail" then return redis.error_reply("ECHOFAIL asked to") end
redis.call("SET", KEYS[1], ARGV[1]) return ARGV[1]`)

// Scripts and command groups of many callers share pipelines: each caller
// gets its own replies, an error of one leaves the others alone, and a
// script the server forgot (SCRIPT FLUSH) is loaded again. On one server
// and on a 3-master cluster (keys of many slots in one batch).
func TestBatcherSharesPipelines(t *testing.T) {
	t.Run("single", func(t *testing.T) { testBatcher(t, testenv.StartRedis(t).Client()) })
	t.Run("cluster", func(t *testing.T) { testBatcher(t, testenv.StartCluster(t, 3).Client(t)) })
}

func testBatcher(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	b := newBatcher(rdb, 1)
	flush := func() {
		if c, ok := rdb.(*redis.ClusterClient); ok {
			if err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.ScriptFlush(ctx).Err() }); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for round := 0; round < 2; round++ {
		flush() // round 0: never loaded; round 1: loaded, then forgotten
		const n = 200
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				key := fmt.Sprintf("batch:{%d}", i)
				switch i % 4 {
				case 0, 1: // a script
					arg := fmt.Sprint(i)
					if i%8 == 0 {
						arg = "fail"
					}
					got, err := b.eval(ctx, echoScript, []string{key}, arg).Text()
					switch {
					case arg == "fail" && (err == nil || !strings.Contains(err.Error(), "ECHOFAIL")):
						errs <- fmt.Errorf("eval %d: got %q, %v; want the script's own error", i, got, err)
					case arg != "fail" && (err != nil || got != arg):
						errs <- fmt.Errorf("eval %d: got %q, %v; want %q", i, got, err, arg)
					}
				case 2: // a group that succeeds
					var get *redis.StringCmd
					cmds, err := b.pipelined(ctx, func(p redis.Pipeliner) {
						p.Set(ctx, key, i, 0)
						get = p.Get(ctx, key)
					})
					if err != nil || len(cmds) != 2 || get.Val() != fmt.Sprint(i) {
						errs <- fmt.Errorf("group %d: %d replies, GET %q, %v; want 2 replies, %d", i, len(cmds), get.Val(), err, i)
					}
				case 3: // a group whose second command fails: its own error
					_, err := b.pipelined(ctx, func(p redis.Pipeliner) {
						p.Set(ctx, key, "x", 0)
						p.LPush(ctx, key, "y") // WRONGTYPE
						p.Get(ctx, key)
					})
					if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
						errs <- fmt.Errorf("group %d: %v; want its WRONGTYPE error", i, err)
					}
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	// A cancelled caller gets its context's error and creates nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	blocked := &batcher{rdb: rdb, reqs: make(chan *evalReq)} // no worker takes it
	if err := blocked.eval(cctx, echoScript, []string{"batch:{cancel}"}, "1").Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled eval: %v; want context.Canceled", err)
	}
	if _, err := blocked.pipelined(cctx, func(p redis.Pipeliner) { p.Set(ctx, "batch:{cancel}", 1, 0) }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled group: %v; want context.Canceled", err)
	}
	if n, err := rdb.Exists(ctx, "batch:{cancel}").Result(); err != nil || n != 0 {
		t.Errorf("a cancelled request wrote: exists %d, %v", n, err)
	}
}
