package indexer

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// batchLimit refuses batches longer than limit as an XGR node started
// with --json-rpc-batch-request-limit does (one error object instead of an
// array), and counts the batches it lets pass.
func batchLimit(limit int, passed *atomic.Int64) func([]testenv.RPCRequest) *testenv.RPCError {
	return func(reqs []testenv.RPCRequest) *testenv.RPCError {
		if len(reqs) > limit {
			return &testenv.RPCError{Code: -32600, Message: "Batch request length too long"}
		}
		passed.Add(1)
		return nil
	}
}

// Against a node that limits batches to 20 requests (XGR's recommended RPC
// setting), the follower learns the limit and indexes everything.
func TestFollowThroughANodeBatchLimit(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	ctx := context.Background()
	ids := make([]string, 60)
	docs := make([][]byte, 60)
	for i := range ids {
		ids[i], docs[i] = fmt.Sprintf("id%d", i), []byte(fmt.Sprintf(`{"id":"f%d","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`, i))
	}
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{IDs: ids, JSONs: docs})
	var passed atomic.Int64
	url, _ := testenv.StartRPCProxy(t, anvil.URL, testenv.RPCProxy{RefuseBatch: batchLimit(20, &passed)})
	client, _, err := chain.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	f, idx := newFollower(t, client, reg.Address)
	f.Range = NewRangeSizer(2000, 0)
	catchUp(t, f)
	for i, id := range ids {
		if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, id)); e["json"] != string(docs[i]) {
			t.Fatalf("%s: %v", id, e)
		}
	}
	if !f.batcher.Batching() || f.batcher.Size() > 20 || passed.Load() == 0 {
		t.Fatalf("batching %v, batch size %d, batches passed %d", f.batcher.Batching(), f.batcher.Size(), passed.Load())
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 0 {
		t.Fatalf("mismatches: %v", m)
	}
}
