package indexstore_test

import (
	"context"
	"math/big"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/testenv"
)

// BenchmarkCommit measures one indexer commit as a backfill makes
// them: 909 fresh cache entries (8 fields each, the orchestration's text
// among them) over 9 blocks, on top of the checkpoint. It reports ms per
// commit and Redis CPU µs per change (INFO commandstats).
func BenchmarkCommit(b *testing.B) {
	srv := testenv.StartRedis(b)
	rdb := srv.Client()
	idx, ctx := indexstore.New(rdb, 31337), context.Background()
	if err := idx.Preload(ctx); err != nil {
		b.Fatal(err)
	}
	const perBlock, nBlocks = 101, 9
	doc := `{"id":"b","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`
	reg := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	hash := func(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n + 1)) }
	var prev common.Hash
	next := uint64(0)
	before, err := redisstat.Read(ctx, rdb)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var blocks []indexstore.Block
		var changes []indexstore.Change
		for k := 0; k < nBlocks; k++ {
			n := next
			next++
			blocks = append(blocks, indexstore.Block{Number: n, Hash: hash(n), Parent: hash(n - 1)})
			for j := 0; j < perBlock; j++ {
				id := "o" + strconv.FormatUint(n*perBlock+uint64(j), 10)
				changes = append(changes, indexstore.Change{Block: n, Key: indexstore.OSTCKey(reg, id), Fields: map[string]string{
					"registry": reg.Hex(), "id": id, "block": strconv.FormatUint(n, 10), "tx": hash(n).Hex(), "version": "1",
					"hash": hash(n).Hex(), "json": doc, "valid": "1",
				}})
			}
		}
		if err := idx.Commit(ctx, prev, i == 0, blocks, nil, changes); err != nil {
			b.Fatal(err)
		}
		prev = blocks[len(blocks)-1].Hash
	}
	b.StopTimer()
	after, err := redisstat.Read(ctx, rdb)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N * perBlock * nBlocks)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/commit")
	// The commit is one EVALSHA (or EVAL the first time); its time includes
	// the commands it runs.
	d := after.Sub(before)
	b.ReportMetric((d["evalsha"].Usec+d["eval"].Usec)/n, "redis-µs/change")
}
