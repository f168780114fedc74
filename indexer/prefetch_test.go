package indexer

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// During a backfill each step reads the next range ahead; a reorg of that
// range between the read and its commit makes the next step drop it and
// read the new chain: the cache ends as a fresh index of the new chain.
func TestPrefetchedRangeDroppedAfterAReorg(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	a, b := example(t, "nested_join.json"), example(t, "minimal_join.json")
	for i := range 6 {
		reg.Put(ctx, s, fmt.Sprintf("id%d", i), a)
	}
	f, idx := newFollower(t, sim.Backend(), reg.Address) // 3 blocks a range
	if _, err := f.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if f.ahead == nil {
		t.Fatal("no range is read ahead during a backfill")
	}
	got, ok := f.ahead.wait(ctx)
	ahead := got.r
	if !ok || ahead == nil || len(ahead.changes) == 0 {
		t.Fatalf("the range read ahead: %+v %v", ahead, got.err)
	}
	// Replace the blocks of the range read ahead: other writes, in blocks
	// with other hashes.
	fork, _ := sim.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(ahead.from-1))
	if err := sim.Simulated.Fork(fork.Hash()); err != nil {
		t.Fatal(err)
	}
	sim.Mine(1)
	for i := range 6 {
		reg.Put(ctx, s, fmt.Sprintf("new%d", i), b)
	}
	catchUp(t, f)

	fresh, freshIdx := newFollower(t, sim.Backend(), reg.Address)
	catchUp(t, fresh)
	for _, id := range []string{"id0", "id1", "id2", "id3", "id4", "id5", "new0", "new5"} {
		key := indexstore.OSTCKey(reg.Address, id)
		got, _ := idx.Entry(ctx, key)
		want, _ := freshIdx.Entry(ctx, key)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s after the reorg:\n got %v\nwant %v", id, got, want)
		}
	}
	head, _, _ := idx.Head(ctx)
	tip, _ := sim.Client.HeaderByNumber(ctx, nil)
	if head.Hash != tip.Hash() {
		t.Fatalf("index head %d %s, chain head %d %s", head.Number, head.Hash.Hex(), tip.Number, tip.Hash().Hex())
	}
}

// A range read ahead is used only by the step it was read for.
func TestTakePrefetchChecksWhereItFits(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	for i := range 6 {
		reg.Put(ctx, s, fmt.Sprintf("id%d", i), example(t, "minimal_join.json"))
	}
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	if _, err := f.Step(ctx); err != nil {
		t.Fatal(err)
	}
	head, _, _ := idx.Head(ctx)
	for _, tc := range []struct {
		name    string
		from    uint64
		head    indexstore.Block
		indexed bool
		want    bool
	}{
		{"the next range", head.Number + 1, head, true, true},
		{"another start block", head.Number + 2, head, true, false},
		{"another checkpoint hash", head.Number + 1, indexstore.Block{Number: head.Number, Hash: common.Hash{1}}, true, false},
		{"an empty index", head.Number + 1, head, false, false},
	} {
		f.startPrefetch(ctx, &rangeRead{to: head.Number, last: head, scope: f.scope()}, head.Number+3)
		if got := f.takePrefetch(ctx, tc.from, tc.head, tc.indexed) != nil; got != tc.want {
			t.Errorf("%s: taken %v, want %v", tc.name, got, tc.want)
		}
		if f.ahead != nil {
			t.Errorf("%s: the prefetch was not let go", tc.name)
		}
	}
}

// A caller that stops stepping and closes the follower leaves no read-ahead
// behind: here the read-ahead holds all the parts it may (aheadParts) and
// waits to hand over the next one when Close stops it.
func TestCloseStopsTheReadAhead(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	for i := range aheadParts + 4 {
		if _, err := reg.Put(ctx, s, fmt.Sprintf("id%d", i), example(t, "nested_join.json")); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := newFollower(t, sim.Backend(), reg.Address)
	f.Range, f.CommitLogs = NewRangeSizer(100, 0), 1 // one range, a part per write
	p := fillReadAhead(t, f)
	closed := make(chan struct{})
	go func() { f.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return: the read-ahead is still blocked")
	}
	select {
	case <-p.done:
	default:
		t.Fatal("Close returned before the read-ahead stopped")
	}
	if f.ahead != nil {
		t.Fatal("the follower still holds a read-ahead")
	}
	f.Close() // twice is fine
}

// fillReadAhead commits f's first part and waits until its read-ahead holds
// all the parts it may (it then blocks on the next one); the follower
// must have more parts than that left in its range.
func fillReadAhead(t *testing.T, f *Follower) *prefetch {
	t.Helper()
	if _, err := f.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := f.ahead
	if p == nil {
		t.Fatal("no read-ahead after the first part")
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(p.parts) < aheadParts {
		if time.Now().After(deadline) {
			t.Fatalf("the read-ahead holds %d parts, want %d", len(p.parts), aheadParts)
		}
		time.Sleep(time.Millisecond)
	}
	return p
}
