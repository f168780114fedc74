package e2e

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// execBenchSessions is how many one-step sessions, each executing one
// settle(), an iteration of BenchmarkExecutionSteps runs.
const execBenchSessions = 100

// BenchmarkExecutionSteps measures executions through steps: sessions whose
// one step's rule executes settle(amount, ref) on anvil with 1-second
// blocks, run by a replica with the transaction manager (final at one
// confirmation, polls of 100 ms), next to a bare sender that signs and
// sends the same calls with its own nonces and waits for the last receipt
// (polling every 100 ms). It reports both rates, their ratio, Redis round
// trips per execution (the replica's client: the whole step, not only the
// transaction manager) and the latency from a valid step (its execution
// recorded) to its final receipt, p50 and p99.
//
//	go test -run '^$' -bench BenchmarkExecutionSteps -benchtime 3x ./e2e
func BenchmarkExecutionSteps(b *testing.B) {
	anvil := testenv.StartAnvil(b)
	ctx := context.Background()
	target := testenv.DeployExecTarget(b, anvil)
	rpcc := anvil.Client.Client()
	if err := rpcc.Call(nil, "evm_setAutomine", false); err != nil {
		b.Fatal(err)
	}
	if err := rpcc.Call(nil, "evm_setIntervalMining", 1); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "Pay.json"), []byte(fmt.Sprintf(`{
  "payload": {"Amount": {"type": "int64"}, "Ref": {"type": "string"}},
  "rules": [],
  "onValid": {"execution": {"to": "%s", "function": "settle(uint256,string)", "gas": {"limit": 100000},
    "args": [{"type": "uint256", "value": "[Amount]"}, {"type": "string", "value": "[Ref]"}]}}
}`, target.Address.Hex())), 0o644)
	rules, err := rulesource.OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	orch, err := registry.Parse([]byte(`{"id": "pay", "structure": {"P1": {"rule": "<Pay>"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	srv := testenv.StartRedis(b)
	counted := srv.Client()
	rt := &redisstat.RoundTrips{}
	store, err := replica.OpenStore(ctx, counted, joinstore.Config{SessionTTL: time.Hour, ServerClock: true})
	if err != nil {
		b.Fatal(err)
	}
	counted.AddHook(rt)
	plain := srv.Client()
	x := execution.DefaultConfig()
	x.Enabled, x.Policy.Targets, x.InFlight = true, execution.Targets(target.Address), 256
	sender, err := onchain.New(ctx, onchain.Config{Executions: x, Redis: plain, Chain: anvil.Client, Key: anvil.Key(1),
		Manager: txmanager.Config{Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 100 * time.Millisecond}})
	if err != nil {
		b.Fatal(err)
	}
	exec, err := replica.Steps{Rules: &rulesource.Loader{Files: rules}}.Executor()
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	began := map[string]time.Time{}
	var latencies []time.Duration
	var lastRetry string
	src := reactor.NewStaticSource(orch)
	m, err := replica.NewManager(replica.ManagerConfig{Store: store, Source: src, Exec: exec, Name: "bench", Poll: 20 * time.Millisecond,
		MaxRoots: 1024, Actuator: sender, ExecPoll: 100 * time.Millisecond, Log: discard(),
		OnEvent: func(r joinstore.Root, e reactor.Event) {
			k := r.String() + "/" + e.Pid
			mu.Lock()
			defer mu.Unlock()
			switch e.Type {
			case reactor.EvExecuting:
				began[k] = time.Now()
			case reactor.EvRetry, reactor.EvAborted:
				lastRetry = string(e.Type) + ": " + e.Detail
			case reactor.EvExecOutcome:
				if t, ok := began[k]; ok {
					latencies = append(latencies, time.Since(t))
				}
			}
		}})
	if err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		if err := sender.Run(runCtx); err != nil && runCtx.Err() == nil {
			b.Errorf("the transaction manager stopped: %v", err)
		}
	}()
	go m.Run(runCtx)
	owner := "0x00000000000000000000000000000000000000b1"
	var mgr, bare time.Duration
	var trips int64
	var ratios []float64
	b.ResetTimer()
	for i := range b.N {
		var bareT time.Duration
		runBare := func() {
			start := time.Now()
			bareSettle(b, anvil, target, 2, i)
			bareT = time.Since(start)
		}
		if i%2 == 0 {
			runBare()
		}
		trips0 := rt.N()
		start := time.Now()
		var roots []joinstore.Root
		for j := range execBenchSessions {
			res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: owner, Registry: "bench", OstcID: "pay", Step: "P1",
				Payload: []byte(fmt.Sprintf(`{"Amount": 1, "Ref": "steps/%d/%d"}`, i, j))})
			if err != nil {
				b.Fatal(err)
			}
			roots = append(roots, res.Root)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for _, r := range roots {
			for {
				meta, err := store.SessionMeta(ctx, r)
				if err == nil && meta.Status == "finished" {
					break
				}
				if time.Now().After(deadline) {
					rec, serr := sender.Manager().Status(ctx, fmt.Sprintf("%s/%d/%d:1", owner, r.RootPid, r.RootPid))
					head, _ := anvil.Client.BlockNumber(ctx)
					mu.Lock()
					retry := lastRetry
					mu.Unlock()
					b.Fatalf("session %s not finished after 2 minutes (status %s): its execution %+v %v; chain head %d; last retry %q", r, meta.Status, rec, serr, head, retry)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		mgrT := time.Since(start)
		trips += rt.N() - trips0
		if i%2 == 1 {
			runBare()
		}
		mgr, bare = mgr+mgrT, bare+bareT
		ratios = append(ratios, bareT.Seconds()/mgrT.Seconds())
		if n := target.Calls(b, anvil.Client, fmt.Sprintf("steps/%d/%d", i, execBenchSessions-1)); n != 1 {
			b.Fatalf("the last session's settle landed %d times", n)
		}
	}
	b.StopTimer()
	n := float64(b.N * execBenchSessions)
	sort.Float64s(ratios)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	b.ReportMetric(n/mgr.Seconds(), "exec/s")
	b.ReportMetric(n/bare.Seconds(), "bare-exec/s")
	b.ReportMetric(bare.Seconds()/mgr.Seconds(), "ratio")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
	b.ReportMetric(float64(trips)/n, "redis-rtt/exec")
	b.ReportMetric(float64(latencies[len(latencies)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Milliseconds()), "p99-ms")
}

// bareSettle sends execBenchSessions settle() calls from key idx with its own
// nonces, one JSON-RPC call each, and waits for the last receipt, polling
// every 100 ms.
func bareSettle(b *testing.B, anvil *testenv.Anvil, target testenv.ExecTarget, idx, round int) {
	ctx := context.Background()
	from := anvil.Address(idx)
	nonce, err := anvil.Client.PendingNonceAt(ctx, from)
	if err != nil {
		b.Fatal(err)
	}
	h, err := anvil.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	tip := big.NewInt(1e9)
	feeCap := new(big.Int).Add(new(big.Int).Mul(h.BaseFee, big.NewInt(2)), tip)
	signer := types.LatestSignerForChainID(anvil.ChainID())
	var last *types.Transaction
	for j := range execBenchSessions {
		data, err := target.ABI.Pack("settle", big.NewInt(1), fmt.Sprintf("bare/%d/%d", round, j))
		if err != nil {
			b.Fatal(err)
		}
		tx, err := types.SignNewTx(anvil.Key(idx), signer, &types.DynamicFeeTx{ChainID: anvil.ChainID(), Nonce: nonce + uint64(j),
			GasTipCap: tip, GasFeeCap: feeCap, Gas: 100000, To: &target.Address, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		if err := anvil.Client.SendTransaction(ctx, tx); err != nil {
			b.Fatal(err)
		}
		last = tx
	}
	for {
		if r, err := anvil.Client.TransactionReceipt(ctx, last.Hash()); err == nil && r != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
