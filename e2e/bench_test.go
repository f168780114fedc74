package e2e

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/testenv"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
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
// (2,000 blocks per request). Each OSTCUpdated costs the indexer two
// eth_calls at the log's block (getOSTC, getOSTCMeta) to verify the hash.
func BenchmarkBackfill(b *testing.B) {
	anvil := testenv.StartAnvil(b)
	ctx := context.Background()
	total := benchEvents()
	doc := []byte(`{"id":"b","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`)
	// Each id in a constructor emits OSTCSet and OSTCUpdated; 100 ids a deploy.
	var regs []common.Address
	senders := make([]*chain.Sender, 10) // spread the gas over the funded accounts
	for i := range senders {
		senders[i] = testenv.Sender(b, anvil, i)
	}
	for made := 0; made < total; made += 200 {
		ids := make([]string, 100)
		jsons := make([][]byte, 100)
		for i := range ids {
			ids[i], jsons[i] = fmt.Sprintf("o%d", made/2+i), doc
		}
		reg, _, err := chain.DeployRegistry(ctx, senders[(made/200)%len(senders)], chain.RegistryInit{IDs: ids, JSONs: jsons})
		if err != nil {
			b.Fatal(err)
		}
		regs = append(regs, reg.Address)
		anvil.Mine(b, 2) // empty blocks let the base fee fall again after a full one
	}
	head, _ := anvil.Client.BlockNumber(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		events := 0
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
		idx := joinstore.New(rdb, joinstore.Config{}).Index(31337)
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
		b.ReportMetric(float64(events), "updated-logs")
		b.ReportMetric(float64(events)/indexed.Seconds(), "indexed-logs/s")
		b.ReportMetric(float64(events)/bare.Seconds(), "bare-getLogs-logs/s")
		b.ReportMetric(indexed.Seconds()/bare.Seconds(), "ratio")
	}
}

// BenchmarkLiveLag measures, at the head, the time from a registry write's
// receipt to its cache entry (the follower polls every 20 ms).
func BenchmarkLiveLag(b *testing.B) {
	anvil := testenv.StartAnvil(b)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(b, anvil, chain.RegistryInit{})
	rdb := testenv.StartRedis(b).Client()
	idx := joinstore.New(rdb, joinstore.Config{}).Index(31337)
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
			if e, _ := idx.Entry(ctx, joinstore.OSTCKey(reg.Address, id)); e != nil {
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
	idx := store.Index(31337)
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := reg.Put(ctx, sender, fmt.Sprintf("t%d", i), flow); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		select {
		case at := <-claimed:
			total += at.Sub(start)
		case <-time.After(30 * time.Second):
			b.Fatal("no session started within 30s")
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "trigger-to-first-step-ms")
}
