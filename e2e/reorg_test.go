package e2e

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A reorg made with anvil_reorg rewinds the cache to what the new chain holds.
func TestAnvilReorgRewindsTheCache(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{})
	s := testenv.Sender(t, anvil, 0)
	v1, v2 := readExample(t, "nested_join.json"), readExample(t, "minimal_join.json")
	reg.Put(ctx, s, "flow", v1)
	anvil.Mine(t, 2)
	reg.Put(ctx, s, "flow", v2)
	idx := indexstore.New(redis.Client(), 31337)
	f := &indexer.Follower{Chain: anvil.Client, ChainID: 31337, Index: idx, Registries: []common.Address{reg.Address}, Log: discard()}
	step := func() indexer.Progress {
		p, err := f.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for p := step(); p.To < p.Head; p = step() {
	}
	if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow")); e["version"] != "2" {
		t.Fatalf("before the reorg: %v", e)
	}
	// Replace the block with the update by two empty blocks.
	if err := anvil.Client.Client().CallContext(ctx, nil, "anvil_reorg", 1, [][]any{}); err != nil {
		t.Fatalf("anvil_reorg: %v", err)
	}
	anvil.Mine(t, 1)
	p := step()
	if !p.Rewound {
		t.Fatalf("the step after the reorg did not rewind: %+v", p)
	}
	for p := step(); p.To < p.Head; p = step() {
	}
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["version"] != "1" || e["json"] != string(v1) {
		t.Fatalf("after the reorg the cache must hold version 1: %v", e)
	}
}
