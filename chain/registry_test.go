package chain_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestRegistryOnTheSimulatedChain(t *testing.T) {
	sim := testenv.StartSim(t)
	g, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	ctx := context.Background()
	s := testenv.Sender(t, sim, 0)
	for i := 1; i <= 3; i++ {
		w, err := g.Put(ctx, s, "x", []byte(`{"n":`+string(rune('0'+i))+`}`))
		if err != nil || w.Version != uint64(i) {
			t.Fatalf("put %d: version %d, %v", i, w.Version, err)
		}
	}
	if _, err := g.Put(ctx, testenv.Sender(t, sim, 1), "x", []byte("{}")); chain.ReasonOf(err) != chain.ReasonNotOwner {
		t.Fatalf("non-owner put on the simulated chain: %v", err)
	}
}

func TestRegistrySnapshotReadsOneBlock(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: []string{"x"}, JSONs: [][]byte{[]byte(`{"v":1}`)}})
	m, text, err := g.Snapshot(ctx, "x")
	if err != nil || string(text) != `{"v":1}` || m.Version != 1 || m.Hash != crypto.Keccak256Hash(text) {
		t.Fatalf("Snapshot = %+v, %q, %v", m, text, err)
	}
	if _, _, err := g.Snapshot(ctx, "y"); !errors.Is(err, chain.ErrNotFound) {
		t.Fatalf("Snapshot of a missing id: %v", err)
	}
}
