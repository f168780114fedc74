package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// deploylessCase deploys a registry of n ids on anvil, all with one small
// text, and returns it with its ids and the text.
func deploylessCase(t *testing.T, a *testenv.Anvil, n int) (*chain.Registry, []string, []byte) {
	ids := make([]string, n)
	docs := make([][]byte, n)
	doc := []byte(`{"id":"d","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`)
	for i := range ids {
		ids[i], docs[i] = fmt.Sprintf("id%d", i), doc
	}
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: ids, JSONs: docs})
	return reg, ids, doc
}

// On anvil the follower reads the metas of a block with deployless calls;
// through a node that refuses calls without `to` it learns that once and
// reads them one by one. Both index the same verified entries.
func TestFollowWithAndWithoutDeploylessCalls(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, ids, doc := deploylessCase(t, a, 40) // block 1
	s := testenv.Sender(t, a, 0)
	for i := range 5 { // blocks 2 to 6
		id := fmt.Sprintf("late%d", i)
		if _, err := reg.Put(ctx, s, id, doc); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, tc := range []struct {
		name       string
		proxy      testenv.RPCProxy
		deployless bool
	}{
		{"node takes calls without to", testenv.RPCProxy{}, true},
		{"node refuses calls without to", testenv.RPCProxy{Answer: testenv.RefuseDeployless}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, answered := testenv.StartRPCProxy(t, a.URL, tc.proxy)
			client, _, err := chain.Dial(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			f, idx := newFollower(t, client, reg.Address)
			f.Range = NewRangeSizer(2, 0)
			catchUp(t, f)
			for _, id := range ids {
				if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, id)); e["json"] != string(doc) || e["valid"] != "1" {
					t.Fatalf("%s: %v", id, e)
				}
			}
			if m, _ := idx.Mismatches(ctx); len(m) != 0 {
				t.Fatalf("mismatches: %v", m)
			}
			if f.batcher.Deployless() != tc.deployless {
				t.Fatalf("deployless %v, want %v", f.batcher.Deployless(), tc.deployless)
			}
			// The first range (blocks 0 and 1) sends one call without to;
			// once it is refused, the other ranges send none.
			if !tc.deployless && answered.Load() != 1 {
				t.Fatalf("%d calls without to refused, want 1", answered.Load())
			}
		})
	}
}

// An RPC endpoint that forges the deployless answer (another hash for one
// entry) is caught like a forged getOSTCMeta: the entry is not cached, the
// mismatch names the three hashes and is recorded.
func TestForgedDeploylessAnswerIsCaught(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, ids, doc := deploylessCase(t, a, 3)
	forged := false
	url, _ := testenv.StartRPCProxy(t, a.URL, testenv.RPCProxy{Rewrite: func(q testenv.RPCRequest, res *testenv.RPCResponse) {
		var out hexutil.Bytes
		if !testenv.IsDeployless(q) || json.Unmarshal(res.Result, &out) != nil || len(out) < 96 {
			return
		}
		// The answer is bytes32[]: offset, length, then the hashes.
		out[64] ^= 0xff
		res.Result, _ = json.Marshal(out)
		forged = true
	}})
	client, _, err := chain.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	f, idx := newFollower(t, client, reg.Address)
	f.Range = NewRangeSizer(2000, 0)
	catchUp(t, f)
	if !forged || !f.batcher.Deployless() {
		t.Fatalf("forged %v, deployless %v: the deployless path was not taken", forged, f.batcher.Deployless())
	}
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, ids[0]))
	h := registry.Hash(doc).Hex()
	if e["json"] != "" || !strings.HasPrefix(e["mismatch"], "event "+h+", getOSTCMeta 0x") || strings.Contains(e["mismatch"], "getOSTCMeta "+h) {
		t.Fatalf("the forged entry: %v", e)
	}
	for _, id := range ids[1:] {
		if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, id)); e["json"] != string(doc) {
			t.Fatalf("%s: %v", id, e)
		}
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 1 {
		t.Fatalf("mismatches: %v", m)
	}
}

// A mismatch found in a part read ahead is recorded when that part
// commits, not when it is verified: a read-ahead that is dropped (here by
// Close; a reorg or a restart alike) leaves no record, and the re-read
// records what it finds (here nothing: the node answers honestly then).
func TestMismatchRecordedWithItsPart(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, ids, doc := deploylessCase(t, a, 1) // block 1
	s := testenv.Sender(t, a, 0)
	for i := range aheadParts + 2 { // one write a block after it
		id := fmt.Sprintf("late%d", i)
		if _, err := reg.Put(ctx, s, id, doc); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// Every answer about the third block is forged until the node turns
	// honest: its part is read ahead (the first part is block 1).
	third, err := a.Client.HeaderByNumber(ctx, big.NewInt(3))
	if err != nil {
		t.Fatal(err)
	}
	var forged atomic.Int64
	var honest atomic.Bool
	url, _ := testenv.StartRPCProxy(t, a.URL, testenv.RPCProxy{Rewrite: func(q testenv.RPCRequest, res *testenv.RPCResponse) {
		var out hexutil.Bytes
		if honest.Load() || !testenv.IsDeployless(q) || !atBlock(q, third.Hash()) ||
			json.Unmarshal(res.Result, &out) != nil || len(out) < 96 {
			return
		}
		out[64] ^= 0xff
		res.Result, _ = json.Marshal(out)
		forged.Add(1)
	}})
	client, _, err := chain.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	f, idx := newFollower(t, client, reg.Address)
	f.Range, f.CommitLogs = NewRangeSizer(2000, 0), 1 // one range, a part per block
	fillReadAhead(t, f)
	if forged.Load() == 0 {
		t.Fatal("no answer was forged: the third block's part was not read ahead")
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 0 {
		t.Fatalf("a mismatch of a part not committed was recorded: %v", m)
	}
	f.Close()
	honest.Store(true)
	catchUp(t, f)
	for _, id := range ids {
		if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, id)); e["json"] != string(doc) {
			t.Fatalf("%s: %v", id, e)
		}
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 0 {
		t.Fatalf("mismatches after the honest re-read: %v", m)
	}
}

// atBlock reports whether a JSON-RPC request names block h.
func atBlock(q testenv.RPCRequest, h common.Hash) bool {
	for _, p := range q.Params {
		if strings.Contains(strings.ToLower(string(p)), strings.ToLower(h.Hex())) {
			return true
		}
	}
	return false
}
