package e2e

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/testenv"
	"github.com/xgr-sidecar/xgr/joinstore"
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
	for made := 0; made < total; made += 200 {
		ids := make([]string, 100)
		jsons := make([][]byte, 100)
		for i := range ids {
			ids[i], jsons[i] = fmt.Sprintf("o%d", made/2+i), doc
		}
		reg, _ := testenv.DeployXRC729(b, anvil, chain.RegistryInit{IDs: ids, JSONs: jsons})
		regs = append(regs, reg.Address)
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
