package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc729"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// tamperProxy forwards JSON-RPC to anvil but answers every eth_call of
// getOSTC with other text than the chain holds, alone or in a batch.
func tamperProxy(t *testing.T, upstream string) string {
	abi := xrc729.NewXRC729().GetABI()
	getOSTC := strings.TrimPrefix(hexutil.Encode(abi.Methods["getOSTC"].ID), "0x")
	url, _ := testenv.StartRPCProxy(t, upstream, testenv.RPCProxy{Rewrite: func(req testenv.RPCRequest, res *testenv.RPCResponse) {
		if req.Method != "eth_call" || len(req.Params) == 0 || !strings.Contains(string(req.Params[0]), getOSTC) {
			return
		}
		var result string
		if json.Unmarshal(res.Result, &result) != nil {
			return
		}
		raw, _ := hex.DecodeString(strings.TrimPrefix(result, "0x"))
		if vals, err := abi.Unpack("getOSTC", raw); err == nil {
			forged, _ := abi.Methods["getOSTC"].Outputs.Pack(strings.Replace(vals[0].(string), "A1", "X1", 1))
			res.Result, _ = json.Marshal(hexutil.Encode(forged))
		}
	}})
	return url
}

// An RPC endpoint that returns other getOSTC text than the chain holds is
// caught by the hash check: the text is never cached or served, and the
// mismatch is counted.
func TestTamperingRPCProxyIsCaught(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{IDs: []string{"flow"}, JSONs: [][]byte{readExample(t, "nested_join.json")}})
	proxy := tamperProxy(t, anvil.URL)
	client, _, err := chain.Dial(ctx, proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	idx := indexstore.New(redis.Client(), 31337)
	f := &indexer.Follower{Chain: client, ChainID: 31337, Index: idx, Registries: []common.Address{reg.Address}, Log: discard()}
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, err := f.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.To >= p.Head {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress")
		}
	}
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["json"] != "" || !strings.Contains(e["mismatch"], "keccak256(getOSTC)") {
		t.Fatalf("the tampered text reached the cache: %v", e)
	}
	src := indexer.NewCacheSource(idx, client)
	if _, err := src.Orchestration(ctx, reg.Address.Hex(), "flow", common.Hash{}); err == nil || !strings.Contains(err.Error(), "never served") {
		t.Fatalf("the source served a mismatching orchestration: %v", err)
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 1 {
		t.Fatalf("mismatches: %v", m)
	}
}
