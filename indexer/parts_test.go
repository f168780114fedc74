package indexer

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestCommitCuts(t *testing.T) {
	logs := func(blocks ...uint64) []types.Log {
		var out []types.Log
		for _, b := range blocks {
			out = append(out, types.Log{BlockNumber: b})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		logs  []types.Log
		limit int
		want  string
	}{
		{"no logs", nil, 8, "[]"},
		{"fewer than a quarter", logs(1, 1, 2), 12, "[]"},
		// The first part holds at most limit/4 = 2 logs, the next ones 8.
		{"a small first part, then full ones", logs(1, 2, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 7), 8, "[2 4]"},
		{"a block over the limit is a part of its own", logs(1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3), 8, "[1 2]"},
		{"a limit below 4", logs(1, 2, 3), 1, "[1 2]"},
	} {
		if got := fmt.Sprint(commitCuts(tc.logs, tc.limit)); got != tc.want {
			t.Errorf("%s: cuts %s, want %s", tc.name, got, tc.want)
		}
	}
}

// partsChain writes, on a simulated chain, a registry (block 1) and 14
// changes in blocks 2 to 15: writes of five ids, some of them rewritten,
// and two deletions.
func partsChain(t *testing.T) (*testenv.Sim, *chain.Registry) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	for i := range 12 {
		doc := example(t, []string{"minimal_join.json", "nested_join.json"}[i%2])
		if _, err := reg.Put(ctx, s, fmt.Sprintf("id%d", i%5), doc); err != nil {
			t.Fatal(err)
		}
		if i == 6 || i == 9 {
			if _, err := reg.Delete(ctx, s, fmt.Sprintf("id%d", i%5)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sim, reg
}

// sameIndex fails unless two indexes hold the same entries of the five ids
// and the same checkpoint.
func sameIndex(t *testing.T, reg *chain.Registry, got, want *indexstore.Index) {
	t.Helper()
	ctx := context.Background()
	for i := range 5 {
		key := indexstore.OSTCKey(reg.Address, fmt.Sprintf("id%d", i))
		a, _ := got.Entry(ctx, key)
		b, _ := want.Entry(ctx, key)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("id%d differs:\n got %v\nwant %v", i, a, b)
		}
	}
	a, _ := got.Entry(ctx, indexstore.OwnerKey(reg.Address))
	b, _ := want.Entry(ctx, indexstore.OwnerKey(reg.Address))
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("owner entry %v, want %v", a, b)
	}
	ha, _, _ := got.Head(ctx)
	hb, _, _ := want.Head(ctx)
	if ha != hb {
		t.Fatalf("heads differ: %+v %+v", ha, hb)
	}
}

// A range with more logs than CommitLogs is committed in parts at block
// boundaries, one per Step: the checkpoint moves to each part's last block
// and the index ends as one commit of the whole range leaves it.
func TestRangeCommittedInParts(t *testing.T) {
	sim, reg := partsChain(t)
	ctx := context.Background()
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	f.Range, f.CommitLogs = NewRangeSizer(50, 0), 4
	tip, _ := sim.Client.BlockNumber(ctx)
	var ends []uint64
	for {
		p, err := f.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.To < p.From {
			break
		}
		// At most a quarter of CommitLogs in the first part, then CommitLogs
		// (one log a block here, one change a log).
		if limit := map[bool]int{true: 1, false: 4}[len(ends) == 0]; p.Changes > limit {
			t.Fatalf("part %d-%d: %d changes, want at most %d", p.From, p.To, p.Changes, limit)
		}
		head, _, _ := idx.Head(ctx)
		h, _ := sim.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(p.To))
		if head.Number != p.To || head.Hash != h.Hash() {
			t.Fatalf("after part %d-%d the checkpoint is %d %s", p.From, p.To, head.Number, head.Hash.Hex())
		}
		ends = append(ends, p.To)
	}
	if len(ends) < 4 || ends[len(ends)-1] != tip {
		t.Fatalf("parts ended at %v (tip %d)", ends, tip)
	}
	whole, wholeIdx := newFollower(t, sim.Backend(), reg.Address)
	whole.Range = NewRangeSizer(50, 0)
	catchUp(t, whole)
	sameIndex(t, reg, idx, wholeIdx)
}

// A reorg of blocks of a part not yet committed makes the next Step drop
// the parts read ahead: the index ends as a fresh index of the new chain.
func TestPartsDroppedAfterAReorg(t *testing.T) {
	sim, reg := partsChain(t)
	ctx := context.Background()
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	f.Range, f.CommitLogs = NewRangeSizer(50, 0), 4
	p, err := f.Step(ctx)
	if err != nil || f.ahead == nil {
		t.Fatalf("first part %+v %v; read ahead: %v", p, err, f.ahead != nil)
	}
	if got, ok := f.ahead.wait(ctx); !ok || got.r == nil || got.r.from != p.To+1 {
		t.Fatalf("the part read ahead: %+v", got)
	}
	// Replace the blocks from p.To+3 on: their writes return in new blocks
	// (the simulated chain mines the dropped transactions again), with
	// other hashes and at other heights.
	fork, _ := sim.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(p.To+2))
	if err := sim.Simulated.Fork(fork.Hash()); err != nil {
		t.Fatal(err)
	}
	sim.Mine(3)
	catchUp(t, f)
	fresh, freshIdx := newFollower(t, sim.Backend(), reg.Address)
	fresh.Range = NewRangeSizer(50, 0)
	catchUp(t, fresh)
	sameIndex(t, reg, idx, freshIdx)
}

// A follower stopped after some parts of a range and restarted on the same
// Redis ends with the index a single run builds.
func TestRestartBetweenParts(t *testing.T) {
	sim, reg := partsChain(t)
	ctx := context.Background()
	first, idx := newFollower(t, sim.Backend(), reg.Address)
	first.Range, first.CommitLogs = NewRangeSizer(50, 0), 4
	for range 2 {
		if _, err := first.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	second := &Follower{Chain: sim.Backend(), ChainID: 1337, Index: idx, Registries: first.Registries, Range: NewRangeSizer(50, 0), CommitLogs: 3}
	catchUp(t, second)
	whole, wholeIdx := newFollower(t, sim.Backend(), reg.Address)
	whole.Range = NewRangeSizer(50, 0)
	catchUp(t, whole)
	sameIndex(t, reg, idx, wholeIdx)
}

// A rule that a part's orchestrations start to reference, updated in a
// later block of the same range, ends cached at its update: the logs after
// the part, read before the rule was followed, are read again.
func TestRuleFollowedFromAPartSeesLaterUpdates(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	ruleV1, ruleV2 := `{"payload":{},"rules":[],"onValid":{"payload":{"v":"1"}}}`, `{"payload":{},"rules":[],"onValid":{"payload":{"v":"2"}}}`
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	r, _ := testenv.DeployXRC137(t, sim, ruleV1)
	s := testenv.Sender(t, sim, 0)
	reg.Put(ctx, s, "f", []byte(fmt.Sprintf(`{"id":"f","structure":{"A":{"rule":"%s"}}}`, r.Address.Hex())))
	for i := range 4 {
		reg.Put(ctx, s, fmt.Sprintf("filler%d", i), example(t, "minimal_join.json"))
	}
	if _, err := r.Update(ctx, s, []byte(ruleV2)); err != nil {
		t.Fatal(err)
	}
	for _, commitLogs := range []int{1, 0} {
		f, idx := newFollower(t, sim.Backend(), reg.Address)
		f.Range, f.CommitLogs, f.FollowRules = NewRangeSizer(50, 0), commitLogs, true
		catchUp(t, f)
		if text, _, ok, err := NewCacheSource(idx, nil).Rule(ctx, r.Address); err != nil || !ok || text != ruleV2 {
			t.Fatalf("CommitLogs %d: cached rule %q %v %v, want the update", commitLogs, text, ok, err)
		}
	}
}
