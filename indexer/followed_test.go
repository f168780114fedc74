package indexer

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Followed answers what the follower follows: the configured registries,
// and with discovery the ones it discovered on the chain; never a registry
// it does not follow.
func TestFollowedRegistries(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	a, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	b, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	never := common.HexToAddress("0x00000000000000000000000000000000000000c0")

	f, idx := newFollower(t, sim.Backend(), a.Address)
	catchUp(t, f)
	configured := &Followed{Registries: f.Registries, Discover: f.Discover, Index: idx}
	for reg, want := range map[common.Address]bool{a.Address: true, b.Address: false, never: false} {
		if got, err := configured.Follows(ctx, reg); err != nil || got != want {
			t.Fatalf("configured [a], no discovery: Follows(%s) = %v %v, want %v", reg.Hex(), got, err, want)
		}
	}

	d, didx := newFollower(t, sim.Backend())
	d.Discover = true
	catchUp(t, d)
	discovered := &Followed{Discover: true, Index: didx}
	for reg, want := range map[common.Address]bool{a.Address: true, b.Address: true, never: false} {
		if got, err := discovered.Follows(ctx, reg); err != nil || got != want {
			t.Fatalf("discover: true: Follows(%s) = %v %v, want %v", reg.Hex(), got, err, want)
		}
	}
	// The same index without discover: true serves nothing it discovered.
	off := &Followed{Index: didx}
	if got, _ := off.Follows(ctx, b.Address); got {
		t.Fatalf("discover: false must not serve a registry the index once discovered")
	}
}
