package indexer

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestDecodeOwnership(t *testing.T) {
	reg := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	prev := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	next := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	tx := common.HexToHash("0xabc")
	good := types.Log{Address: reg, BlockNumber: 7, TxHash: tx, Index: 2,
		Topics: []common.Hash{TopicOwnershipTransferred, common.BytesToHash(prev.Bytes()), common.BytesToHash(next.Bytes())}}
	o, ok, err := DecodeOwnership(good)
	if err != nil || !ok || o.Registry != reg || o.Previous != prev || o.Owner != next || o.Block != 7 || o.TxHash != tx || o.Index != 2 {
		t.Fatalf("decoded %+v %v %v", o, ok, err)
	}
	e := o.Entry()
	if e.Key != "owner:0x5fbdb2315678afecb367f032d93f642f64180aa3" || e.Block != 7 || e.Delete || e.Pending ||
		len(e.Fields) != 3 || e.Fields["owner"] != "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" || e.Fields["block"] != "7" || e.Fields["tx"] != tx.Hex() {
		t.Fatalf("entry %+v", e)
	}
	// A checksummed and a lower-case spelling name one key.
	if indexstore.OwnerKey(reg) != indexstore.OwnerKey(common.HexToAddress(strings.ToLower(reg.Hex()))) {
		t.Fatal("OwnerKey depends on the spelling")
	}

	other := good
	other.Topics = []common.Hash{TopicOSTCUpdated, {}, {}, {}}
	if _, ok, err := DecodeOwnership(other); ok || err != nil {
		t.Fatalf("another event: %v %v", ok, err)
	}
	if _, ok, err := DecodeOwnership(types.Log{Address: reg}); ok || err != nil {
		t.Fatalf("a log without topics: %v %v", ok, err)
	}

	unindexed := good
	unindexed.Topics = good.Topics[:1]
	if _, _, err := DecodeOwnership(unindexed); err == nil || !strings.Contains(err.Error(), "has 1 topics; want 3") || !strings.Contains(err.Error(), reg.Hex()) {
		t.Fatalf("a log with one topic: %v", err)
	}
	dirty := good
	dirty.Topics = []common.Hash{TopicOwnershipTransferred, common.BytesToHash(prev.Bytes()), common.HexToHash("0x01" + strings.Repeat("00", 31))}
	if _, _, err := DecodeOwnership(dirty); err == nil || !strings.Contains(err.Error(), "topic 2") || !strings.Contains(err.Error(), "want an address") {
		t.Fatalf("a topic that is no address: %v", err)
	}
}

func TestParseOwnerEntry(t *testing.T) {
	reg := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	if a, err := parseOwnerEntry(reg, map[string]string{"owner": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}); err != nil || a != common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8") {
		t.Fatalf("%s %v", a.Hex(), err)
	}
	for _, bad := range []string{"", "nobody", "70997970c51812dc3a010c7d01b50e0d17dc79c8"} {
		if _, err := parseOwnerEntry(reg, map[string]string{"owner": bad}); err == nil || !strings.Contains(err.Error(), reg.Hex()) || !strings.Contains(err.Error(), "want an 0x address") {
			t.Errorf("owner %q: %v", bad, err)
		}
	}
}

// ownerEntry fails the test unless the index holds owner, block and tx of r
// as the owner entry of reg.
func ownerEntry(t *testing.T, idx *indexstore.Index, reg, owner common.Address, r *types.Receipt) {
	t.Helper()
	e, err := idx.Entry(context.Background(), indexstore.OwnerKey(reg))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"owner": strings.ToLower(owner.Hex()), "block": r.BlockNumber.String(), "tx": r.TxHash.Hex()}
	if len(e) != len(want) || e["owner"] != want["owner"] || e["block"] != want["block"] || e["tx"] != want["tx"] {
		t.Fatalf("owner entry of %s: %v, want %v", reg.Hex(), e, want)
	}
}

// The follower records the owner from the constructor's OwnershipTransferred
// and follows transferOwnership; Owner serves it without a chain.
func TestFollowOwner(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, deployed := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	unfollowed, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	catchUp(t, f)
	ownerEntry(t, idx, reg.Address, sim.Address(0), deployed)
	src := NewCacheSource(idx, nil)
	if o, err := src.Owner(ctx, reg.Address); err != nil || o != sim.Address(0) {
		t.Fatalf("owner after deploy: %s %v", o.Hex(), err)
	}
	if e, _ := idx.Entry(ctx, indexstore.OwnerKey(unfollowed.Address)); e != nil {
		t.Fatalf("an unfollowed registry has an owner entry: %v", e)
	}

	r, err := reg.TransferOwnership(ctx, testenv.Sender(t, sim, 0), sim.Address(1))
	if err != nil {
		t.Fatal(err)
	}
	sim.Mine(2)
	catchUp(t, f)
	ownerEntry(t, idx, reg.Address, sim.Address(1), r)
	if o, err := src.Owner(ctx, reg.Address); err != nil || o != sim.Address(1) {
		t.Fatalf("owner after transferOwnership: %s %v", o.Hex(), err)
	}
	if n, err := idx.Count(ctx, "owner:"); err != nil || n != 1 {
		t.Fatalf("owner entries: %d %v", n, err)
	}
}

// A discovered registry's owner is recorded from the same deployment that
// announces it (the constructor emits OwnershipTransferred first).
func TestDiscoveredRegistryOwner(t *testing.T) {
	sim := testenv.StartSim(t)
	f, idx := newFollower(t, sim.Backend())
	f.Discover = true
	f.Range = NewRangeSizer(50, 0)
	catchUp(t, f)
	reg, deployed := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	catchUp(t, f)
	ownerEntry(t, idx, reg.Address, sim.Address(0), deployed)
}

// A reorg that drops a transfer restores the owner before it, entry and all.
func TestReorgRestoresTheOwner(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	first, err := reg.TransferOwnership(ctx, testenv.Sender(t, sim, 0), sim.Address(1))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := sim.Client.HeaderByNumber(ctx, nil)
	dropped, err := reg.TransferOwnership(ctx, testenv.Sender(t, sim, 1), sim.Address(2)) // to be reorged away
	if err != nil {
		t.Fatal(err)
	}
	second := dropped.TxHash
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	catchUp(t, f)
	src := NewCacheSource(idx, nil)
	if o, err := src.Owner(ctx, reg.Address); err != nil || o != sim.Address(2) {
		t.Fatalf("before the reorg: %s %v", o.Hex(), err)
	}
	if err := sim.Simulated.Fork(base.Hash()); err != nil {
		t.Fatal(err)
	}
	sim.Mine(3)
	p, err := f.Step(ctx)
	if err != nil || !p.Rewound || p.To != base.Number.Uint64() {
		t.Fatalf("the step after the reorg must rewind to block %d: %+v %v", base.Number, p, err)
	}
	ownerEntry(t, idx, reg.Address, sim.Address(1), first)
	if o, err := src.Owner(ctx, reg.Address); err != nil || o != sim.Address(1) {
		t.Fatalf("after the rewind: %s %v", o.Hex(), err)
	}
	// The simulated chain re-includes the dropped transfer in the new chain:
	// following it records the transfer again, from its new block.
	catchUp(t, f)
	e, _ := idx.Entry(ctx, indexstore.OwnerKey(reg.Address))
	if e["owner"] != strings.ToLower(sim.Address(2).Hex()) || e["block"] != new(big.Int).Add(base.Number, common.Big1).String() || e["tx"] != second.Hex() {
		t.Fatalf("the re-included transfer: %v", e)
	}
}

// Without an owner entry Owner reads owner() from the chain: for a registry
// that is not followed, and for one deployed before the start block.
func TestOwnerFallsBackToTheChain(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	unfollowed, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	early, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	head, _ := sim.Client.BlockNumber(ctx)
	f, idx := newFollower(t, sim.Backend(), early.Address)
	f.Start = head + 1
	sim.Mine(1)
	catchUp(t, f)
	src := NewCacheSource(idx, sim.Backend())
	for _, reg := range []*chain.Registry{unfollowed, early} {
		if e, _ := idx.Entry(ctx, indexstore.OwnerKey(reg.Address)); e != nil {
			t.Fatalf("owner entry of %s: %v", reg.Address.Hex(), e)
		}
		if o, err := src.Owner(ctx, reg.Address); err != nil || o != sim.Address(0) {
			t.Fatalf("live owner of %s: %s %v", reg.Address.Hex(), o.Hex(), err)
		}
	}
	// The live read sees a transfer at once; nothing is cached for it.
	if _, err := unfollowed.TransferOwnership(ctx, testenv.Sender(t, sim, 0), sim.Address(3)); err != nil {
		t.Fatal(err)
	}
	if o, err := src.Owner(ctx, unfollowed.Address); err != nil || o != sim.Address(3) {
		t.Fatalf("live owner after a transfer: %s %v", o.Hex(), err)
	}
	if e, _ := idx.Entry(ctx, indexstore.OwnerKey(unfollowed.Address)); e != nil {
		t.Fatalf("a live read was cached: %v", e)
	}
	// A transfer of the followed registry above the start block is indexed.
	r, err := early.TransferOwnership(ctx, testenv.Sender(t, sim, 0), sim.Address(4))
	if err != nil {
		t.Fatal(err)
	}
	catchUp(t, f)
	ownerEntry(t, idx, early.Address, sim.Address(4), r)
	// An address without a contract is an error that says so.
	nobody := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	if _, err := src.Owner(ctx, nobody); err == nil || !errors.Is(err, chain.ErrNoContract) || !strings.Contains(err.Error(), nobody.Hex()) {
		t.Fatalf("owner of an address without code: %v", err)
	}
}

func TestOwnerWithoutChainOrEntry(t *testing.T) {
	idx := indexstore.New(testenv.StartRedis(t).Client(), 1337)
	reg := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	_, err := NewCacheSource(idx, nil).Owner(context.Background(), reg)
	if !errors.Is(err, ErrOwnerUnknown) || !strings.Contains(err.Error(), reg.Hex()) || !strings.Contains(err.Error(), "no chain") {
		t.Fatalf("owner without entry and chain: %v", err)
	}
}
