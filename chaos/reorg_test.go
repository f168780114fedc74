//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// reorgConfirmations is the finality of TestChaosDeepReorg's replicas: the
// reorgs go deeper.
const reorgConfirmations = 2

// reorgConfig are TestChaosDeepReorg's own knobs.
type reorgConfig struct {
	reorgs, depth int
}

func loadReorgConfig(t *testing.T, cfg config) reorgConfig {
	// 16 blocks are 4 s of the run's blocks (one every 250 ms, automine
	// off): deeper than 2 confirmations and than a tick (1 s), so the
	// replicas have recorded final most transactions a reorg takes.
	rc := reorgConfig{reorgs: max(3, cfg.kills), depth: 16}
	for name, p := range map[string]*int{"XGR_CHAOS_REORGS": &rc.reorgs, "XGR_CHAOS_REORG_DEPTH": &rc.depth} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				t.Fatalf("%s=%q: want a whole number ≥ 1", name, v)
			}
			*p = n
		}
	}
	if rc.depth <= reorgConfirmations {
		t.Fatalf("XGR_CHAOS_REORG_DEPTH=%d: want more than the run's %d confirmations (a reorg past finality)", rc.depth, reorgConfirmations)
	}
	return rc
}

// TestChaosDeepReorg: reorgs deeper than the configured finality while
// executions run (issue 41, item 3). Replicas of `xgr run --executions`
// with finality 2 confirmations run the sessions of TestChaosExecutions
// (two settle calls each); XGR_CHAOS_REORGS times during the load anvil
// replaces the last XGR_CHAOS_REORG_DEPTH blocks by empty ones
// (anvil_reorg), taking transactions the replicas recorded final from the
// chain. The audit is TestChaosExecutions': every execution committed
// once, its recorded transaction on chain with a successful receipt, each
// ref settled exactly once, the executor's nonces contiguous with nothing
// left pending, every session finished (no stall). The report adds the
// reorgs, the "finality violated" ERROR lines and, per reorg, how long the
// executor's mined nonce took to be back where it was before it.
func TestChaosDeepReorg(t *testing.T) {
	cfg := loadConfig(t)
	ec := loadExecConfig(t, cfg)
	rc := loadReorgConfig(t, cfg)
	t.Logf("knobs: XGR_CHAOS_EXEC_SESSIONS=%d XGR_CHAOS_REORGS=%d XGR_CHAOS_REORG_DEPTH=%d XGR_CHAOS_REPLICAS=%d XGR_CHAOS_DURATION=%s XGR_CHAOS_SETTLE=%s XGR_CHAOS_SEED=%d",
		ec.sessions, rc.reorgs, rc.depth, cfg.replicas, cfg.duration, cfg.settle, cfg.seed)
	rds := testenv.StartRedis(t, testenv.WithAOF())
	rdb := redis.NewClient(&redis.Options{Addr: rds.Addr, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer rdb.Close()
	rec := reorgRecovery{done: make(chan struct{})}
	xf := execFaults{confirmations: reorgConfirmations, chain: &rec.chain,
		plan: func(rn *run, anvil *testenv.Anvil) []fault {
			// The blocks before the load (the target's deployment) stay.
			base, err := anvil.Client.BlockNumber(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var fs []fault
			for i := 0; i < rc.reorgs; i++ {
				fs = append(fs, fault{kind: "deep reorg", do: func() (string, error) { return rec.reorg(anvil, base, rc.depth) }})
			}
			return rn.plan(0, fs...)
		},
		report: func(fl *fleet) []string {
			violated := 0
			for msg, n := range fl.warnings() {
				if strings.HasPrefix(msg, "ERROR txmanager: finality violated") {
					violated += n
				}
			}
			if violated == 0 {
				t.Errorf("no replica logged \"finality violated\": the reorgs took no transaction the replicas had recorded final (raise XGR_CHAOS_REORG_DEPTH)")
			}
			return append([]string{
				"deep reorgs\t" + fmt.Sprintf("%d of %d planned, of up to %d blocks each (finality %d confirmations)", rec.count(), rc.reorgs, rc.depth, reorgConfirmations),
				"finality violated (ERROR lines)\t" + fmt.Sprintf("%d (final transactions a reorg took, sent again)", violated),
			}, rec.lines()...)
		}}
	runExecutionsWith(t, cfg, ec, "reorg", rdb, []string{"--redis", "redis://" + rds.Addr + "/0"},
		"redis-server\tappendonly yes, appendfsync always", xf)
	close(rec.done)
	rec.wg.Wait()
}

// reorgRecovery measures, per reorg, the executor's mined nonce before
// it and how long the chain took to reach it again.
type reorgRecovery struct {
	chain   sync.Mutex    // held by the run's miner per block, and by a reorg
	done    chan struct{} // closed when the run is over: the watchers stop
	wg      sync.WaitGroup
	mu      sync.Mutex
	started int
	took    []time.Duration
	taken   []uint64 // executor transactions each recovered reorg took
}

// reorg replaces the last depth blocks of anvil (none at or below base) by
// empty ones and starts watching the executor's nonce recover.
func (r *reorgRecovery) reorg(anvil *testenv.Anvil, base uint64, depth int) (string, error) {
	r.chain.Lock()
	defer r.chain.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	executor := anvil.Address(1)
	head, err := anvil.Client.BlockNumber(ctx)
	if err != nil {
		return "", err
	}
	if head < base+uint64(depth) {
		depth = int(head - base) // early in the run: every block of the load
	}
	if depth <= reorgConfirmations {
		return fmt.Sprintf("deep reorg skipped: head %d leaves no reorg past %d confirmations", head, reorgConfirmations), nil
	}
	before, err := anvil.Client.NonceAt(ctx, executor, nil)
	if err != nil {
		return "", err
	}
	if err := anvil.Client.Client().CallContext(ctx, nil, "anvil_reorg", depth, [][]any{}); err != nil {
		return "", fmt.Errorf("anvil_reorg %d: %w", depth, err)
	}
	at := time.Now()
	after, err := anvil.Client.NonceAt(ctx, executor, nil)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	r.started++
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			n, err := anvil.Client.NonceAt(c, executor, nil)
			cancel()
			if err == nil && n >= before {
				r.mu.Lock()
				r.took = append(r.took, time.Since(at))
				r.taken = append(r.taken, before-after)
				r.mu.Unlock()
				return
			}
			select {
			case <-r.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return fmt.Sprintf("deep reorg of %d blocks at head %d: executor nonce %d → %d", depth, head, before, after), nil
}

// count is how many reorgs were made.
func (r *reorgRecovery) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// lines are the report's rows: per reorg, the transactions it took and
// the recovery time, and the longest.
func (r *reorgRecovery) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	var longest time.Duration
	for i, d := range r.took {
		parts = append(parts, fmt.Sprintf("%d txs %s", r.taken[i], d.Round(10*time.Millisecond)))
		longest = max(longest, d)
	}
	return []string{
		"nonce back after each reorg\t" + strings.Join(parts, ", "),
		"longest stall after a reorg\t" + fmt.Sprintf("%s (executor's mined nonce back to its value before the reorg; %d of %d reorgs not back)", longest.Round(10*time.Millisecond), r.started-len(r.took), r.started),
	}
}
