package indexer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/testenv"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// batchLimitProxy forwards JSON-RPC to upstream but refuses batches longer
// than limit as an XGR node started with --json-rpc-batch-request-limit
// does: one error object instead of an array. It counts the batches it
// passed.
func batchLimitProxy(t *testing.T, upstream string, limit int) (*httptest.Server, *atomic.Int64) {
	var passed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			if bytes.Count(body, []byte(`"jsonrpc"`)) > limit {
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Batch request length too long"}}`)
				return
			}
			passed.Add(1)
		}
		resp, err := http.Post(upstream, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, &passed
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
	proxy, passed := batchLimitProxy(t, anvil.URL, 20)
	client, _, err := chain.Dial(ctx, proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	f, idx := newFollower(t, client, reg.Address)
	f.Range = NewRangeSizer(2000, 0)
	catchUp(t, f)
	for i, id := range ids {
		if e, _ := idx.Entry(ctx, joinstore.OSTCKey(reg.Address, id)); e["json"] != string(docs[i]) {
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
