package e2e

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc729"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/testenv"
)

// benchEvents is how many registry events BenchmarkBackfill creates
// (XGR_BENCH_EVENTS, default 5,000; the figure uses 50,000).
func benchEvents() int {
	if n, err := strconv.Atoi(os.Getenv("XGR_BENCH_EVENTS")); err == nil && n > 0 {
		return n
	}
	return 5000
}

// BenchmarkBackfill indexes registry events on anvil from an empty index
// and compares the time with a bare loop of eth_getLogs over the same range
// (2,000 blocks per request): the ratio metric is indexer time / bare time,
// the median over the iterations (-benchtime 5x: five alternating pairs).
// Each OSTCUpdated costs the indexer a getOSTCMeta at the log's block, and
// each distinct text one getOSTC, sent as JSON-RPC batches.
func BenchmarkBackfill(b *testing.B) {
	anvil := testenv.StartAnvil(b)
	ctx := context.Background()
	total := benchEvents()
	regs := deployBenchRegistries(b, anvil, total)
	head, _ := anvil.Client.BlockNumber(ctx)
	var bares, indexeds, ratios []float64
	events := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		events = 0
		for from := uint64(0); from <= head; from += 2000 {
			logs, err := anvil.Client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from),
				ToBlock: new(big.Int).SetUint64(min(head, from+1999)), Addresses: regs,
				Topics: [][]common.Hash{{indexer.TopicOSTCUpdated, indexer.TopicOSTCDeletedIndexed}}})
			if err != nil {
				b.Fatal(err)
			}
			events += len(logs)
		}
		bare := time.Since(start)

		rdb := testenv.StartRedis(b).Client()
		idx := indexstore.New(rdb, 31337)
		f := &indexer.Follower{Chain: anvil.Client, ChainID: 31337, Index: idx, Registries: regs, Range: indexer.NewRangeSizer(2000, 0), Log: discard()}
		start = time.Now()
		for {
			p, err := f.Step(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if p.To >= p.Head {
				break
			}
		}
		indexed := time.Since(start)
		if n, _ := idx.Count(ctx, "ostc:"); n != events {
			b.Fatalf("%d cache entries for %d OSTCUpdated logs", n, events)
		}
		bares, indexeds = append(bares, bare.Seconds()), append(indexeds, indexed.Seconds())
		ratios = append(ratios, indexed.Seconds()/bare.Seconds())
	}
	// With -benchtime Nx the pairs alternate (bare, indexed) and the
	// medians are reported: the node's own read time moves ±20 % between
	// runs.
	bare, indexed := median(bares), median(indexeds)
	b.ReportMetric(float64(events), "updated-logs")
	b.ReportMetric(float64(events)/indexed, "indexed-logs/s")
	b.ReportMetric(float64(events)/bare, "bare-getLogs-logs/s")
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(bare, "bare-s")
	b.ReportMetric(indexed, "indexed-s")
}

// median of xs (sorted in place).
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// BenchmarkLiveLag measures, at the head, the time from a registry write's
// receipt to its cache entry (the follower polls every 20 ms).
func BenchmarkLiveLag(b *testing.B) {
	anvil := testenv.StartAnvil(b)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(b, anvil, chain.RegistryInit{})
	rdb := testenv.StartRedis(b).Client()
	idx := indexstore.New(rdb, 31337)
	svc := &indexer.Service{Follower: &indexer.Follower{Chain: anvil.Client, ChainID: 31337, Index: idx, Registries: []common.Address{reg.Address}, Log: discard()},
		Poll: 20 * time.Millisecond, Log: discard()}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go svc.Run(runCtx)
	sender := testenv.Sender(b, anvil, 0)
	doc := []byte(`{"id":"b","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`)
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("live%d", i)
		if _, err := reg.Put(ctx, sender, id, doc); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for {
			if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, id)); e != nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "lag-ms")
}

// BenchmarkTriggerToFirstStep measures, on anvil with one confirmation, the
// time from a trigger transaction's receipt to the first claim of the
// session it starts (indexer poll 20 ms, manager poll 20 ms).
func BenchmarkTriggerToFirstStep(b *testing.B) {
	anvil := testenv.StartAnvil(b)
	ctx := context.Background()
	flow, err := os.ReadFile("../examples/ostc/nested_join.json")
	if err != nil {
		b.Fatal(err)
	}
	reg, _ := testenv.DeployXRC729(b, anvil, chain.RegistryInit{IDs: []string{"flow"}, JSONs: [][]byte{flow}})
	cfg, err := indexer.ParseConfig("bench", []byte(fmt.Sprintf(`
registries: ["%[1]s"]
finality: confirmations
confirmations: 1
triggers:
  - name: t
    contract: "%[1]s"
    event: "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"
    orchestration: {registry: "%[1]s", id: flow}
    start: A1
    owner: {arg: owner}
    payload: {Id: {arg: id}}
`, reg.Address.Hex())))
	if err != nil {
		b.Fatal(err)
	}
	rdb := testenv.StartRedis(b).Client()
	store := joinstore.New(rdb, joinstore.Config{})
	idx := indexstore.New(rdb, 31337)
	source := indexer.NewCacheSource(idx, anvil.Client)
	claimed := make(chan time.Time, 1024)
	exec, _ := reactor.ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	m := &reactor.Manager{Store: store, Source: source, Exec: exec, Replica: "bench", Poll: 20 * time.Millisecond, Log: discard(),
		OnEvent: func(r joinstore.Root, e reactor.Event) {
			if e.Type == "claimed" && strings.HasSuffix(e.Pid, ":1") {
				claimed <- time.Now()
			}
		}}
	svc := &indexer.Service{
		Follower: &indexer.Follower{Chain: anvil.Client, ChainID: 31337, Index: idx, Registries: cfg.Registries, Triggers: cfg.Triggers, Log: discard()},
		Starter:  &indexer.Starter{Chain: anvil.Client, Index: idx, Store: store, Source: source, Finality: cfg.Finality, Confirmations: cfg.Confirmations, Log: discard()},
		Poll:     20 * time.Millisecond, Log: discard()}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go svc.Run(runCtx)
	go m.Run(runCtx)
	<-claimed // the registry's own "flow" write is a trigger too
	sender := testenv.Sender(b, anvil, 0)
	var total time.Duration
	var lat []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := reg.Put(ctx, sender, fmt.Sprintf("t%d", i), flow); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		select {
		case at := <-claimed:
			total += at.Sub(start)
			lat = append(lat, float64(at.Sub(start).Microseconds())/1000)
		case <-time.After(30 * time.Second):
			b.Fatal("no session started within 30s")
		}
	}
	sort.Float64s(lat)
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "trigger-to-first-step-ms")
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
}

// deployBenchRegistries makes total registry events (half OSTCSet, half
// OSTCUpdated: each id in a constructor emits both) in registries of 100
// ids. The deployments are signed and sent at once from ten accounts with
// automine off, then mined, so 50,000 events take seconds, not minutes.
func deployBenchRegistries(b *testing.B, anvil *testenv.Anvil, total int) []common.Address {
	ctx := context.Background()
	rpcc := anvil.Client.Client()
	doc := `{"id":"b","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`
	bin := common.FromHex(xrc729.XRC729MetaData.Bin)
	abi := xrc729.NewXRC729()
	deploy := func(first int) []byte {
		ids, jsons := make([]string, 100), make([]string, 100)
		for i := range ids {
			ids[i], jsons[i] = fmt.Sprintf("o%d", first+i), doc
		}
		return append(append([]byte{}, bin...), abi.PackConstructor(ids, jsons, []common.Address{})...)
	}
	gas, err := anvil.Client.EstimateGas(ctx, ethereum.CallMsg{From: anvil.Address(0), Data: deploy(0)})
	if err != nil {
		b.Fatalf("estimate a deployment: %v", err)
	}
	if err := rpcc.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		b.Fatalf("evm_setAutomine: %v", err)
	}
	defer rpcc.CallContext(ctx, nil, "evm_setAutomine", true)
	const accounts = 10
	nonces := make([]uint64, accounts)
	for i := range nonces {
		if nonces[i], err = anvil.Client.PendingNonceAt(ctx, anvil.Address(i)); err != nil {
			b.Fatal(err)
		}
	}
	signer := types.LatestSignerForChainID(anvil.ChainID())
	var regs []common.Address
	var last common.Hash
	for k := 0; k*200 < total; k++ {
		i := k % accounts
		tx, err := types.SignNewTx(anvil.Key(i), signer, &types.DynamicFeeTx{ChainID: anvil.ChainID(), Nonce: nonces[i],
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e12), Gas: gas * 6 / 5, Data: deploy(k * 100)})
		if err != nil {
			b.Fatal(err)
		}
		if err := anvil.Client.SendTransaction(ctx, tx); err != nil {
			b.Fatalf("send deployment %d: %v", k, err)
		}
		regs = append(regs, crypto.CreateAddress(anvil.Address(i), nonces[i]))
		nonces[i]++
		last = tx.Hash()
	}
	// Mine until the pool is empty (a deployment fills most of a block).
	// Full blocks raise the base fee; it is set back to 1 gwei each block.
	for range len(regs) + 1 {
		if err := rpcc.CallContext(ctx, nil, "anvil_setNextBlockBaseFeePerGas", hexutil.EncodeUint64(1e9)); err != nil {
			b.Fatalf("anvil_setNextBlockBaseFeePerGas: %v", err)
		}
		anvil.Mine(b, 1)
		var pool struct {
			Pending hexutil.Uint64 `json:"pending"`
			Queued  hexutil.Uint64 `json:"queued"`
		}
		if err := rpcc.CallContext(ctx, &pool, "txpool_status"); err != nil {
			b.Fatalf("txpool_status: %v", err)
		}
		if pool.Pending+pool.Queued == 0 {
			break
		}
	}
	if r, err := anvil.Client.TransactionReceipt(ctx, last); err != nil || r.Status != types.ReceiptStatusSuccessful {
		b.Fatalf("the last deployment: %v %v", r, err)
	}
	return regs
}
