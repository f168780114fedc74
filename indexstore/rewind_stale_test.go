package indexstore

import (
	"context"
	"errors"
	"math/big"
	"sort"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The rewind's STALE_HEAD paths: the checkpoint moved, or (same
// checkpoint hash) the undo lists name an entry key the caller did not
// declare. Either way nothing is written, and a rewind that reads the
// index again succeeds.

func staleHash(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n + 1)) }

func staleBlock(n uint64) Block {
	return Block{Number: n, Hash: staleHash(n), Parent: staleHash(n - 1)}
}

var staleReg = common.HexToAddress("0x00000000000000000000000000000000000000AA")

// staleIndex commits block 10 (entry a), then 11 (a changed, b new) and 12
// (a trigger start).
func staleIndex(t *testing.T, rdb redis.UniversalClient) *Index {
	t.Helper()
	ctx := context.Background()
	x := New(rdb, 7)
	a, b := OSTCKey(staleReg, "a"), OSTCKey(staleReg, "b")
	if err := x.Commit(ctx, common.Hash{}, true, []Block{staleBlock(10)}, nil, []Change{
		{Block: 10, Key: a, Fields: map[string]string{"version": "1"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := x.Commit(ctx, staleHash(10), false, []Block{staleBlock(11), staleBlock(12)}, nil, []Change{
		{Block: 11, Key: a, Fields: map[string]string{"version": "2"}},
		{Block: 11, Key: b, Fields: map[string]string{"version": "1"}},
		{Block: 12, Key: StartKey("s"), Fields: map[string]string{"status": "pending"}, Pending: true},
	}); err != nil {
		t.Fatal(err)
	}
	return x
}

// dumpIndex is every key of the index with its DUMP serialization.
func dumpIndex(t *testing.T, x *Index) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := redisscan.Keys(ctx, x.rdb, x.prefix+"*")
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		if out[k], err = x.rdb.Dump(ctx, k).Result(); err != nil {
			t.Fatalf("dump %s: %v", k, err)
		}
	}
	return out
}

// changedKeys lists the keys whose dumps differ (or that exist on one
// side only), sorted.
func changedKeys(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if w, ok := after[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// assertRewound checks the index after a rewind of staleIndex's blocks 11
// and 12 (and whatever was committed again there) to block 10.
func assertRewound(t *testing.T, x *Index, extra ...string) {
	t.Helper()
	ctx := context.Background()
	if e, _ := x.Entry(ctx, OSTCKey(staleReg, "a")); e["version"] != "1" {
		t.Errorf("entry a after the rewind: %v; want version 1", e)
	}
	for _, k := range append([]string{OSTCKey(staleReg, "b"), StartKey("s")}, extra...) {
		if e, _ := x.Entry(ctx, k); e != nil {
			t.Errorf("entry %s outlived the rewind of its block: %v", k, e)
		}
	}
	if head, ok, err := x.Head(ctx); err != nil || !ok || head.Number != 10 || head.Hash != staleHash(10) {
		t.Errorf("head after the rewind: %+v %v %v; want block 10", head, ok, err)
	}
	if w, _ := x.Window(ctx); len(w) != 1 || w[0] != staleBlock(10) {
		t.Errorf("window after the rewind: %+v; want block 10 only", w)
	}
	if n, _ := x.PendingCount(ctx); n != 0 {
		t.Errorf("%d pending starts after the rewind; want 0", n)
	}
}

// A rewind from a checkpoint hash that is not the index's is STALE_HEAD
// and writes nothing; the rewind from the checkpoint it reads again
// applies.
func TestRewindFromAMovedCheckpointWritesNothing(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		x := staleIndex(t, rdb)
		before := dumpIndex(t, x)
		if _, _, err := x.Rewind(ctx, staleHash(11), staleBlock(10)); !errors.Is(err, ErrStaleHead) {
			t.Errorf("rewind from block 11 with the checkpoint at 12: %v; want ErrStaleHead", err)
		}
		if changed := changedKeys(before, dumpIndex(t, x)); len(changed) > 0 {
			t.Fatalf("the refused rewind changed (or removed, or added) %q", changed)
		}
		head, _, err := x.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if undone, kept, err := x.Rewind(ctx, head.Hash, staleBlock(10)); err != nil || undone != 3 || kept != 0 {
			t.Fatalf("rewind from the checkpoint read again: %d undone, %d kept, %v; want 3, 0", undone, kept, err)
		}
		assertRewound(t, x)
	})
}

// The checkpoint hash is the one the caller read (readRewind), but the
// undo lists changed before its script ran (runRewind): another replica
// rewound blocks 11 and 12 and committed them again with the same hashes
// and one more change (entry c; its follower's scope was wider). The
// rewind with the keys the caller declared is STALE_HEAD, writes nothing,
// and the caller's retry (Rewind, which reads the lists again) applies.
func TestRewindOfChangedUndoListsWritesNothing(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		x := staleIndex(t, rdb)
		c := OSTCKey(staleReg, "c")
		keys, args, err := x.readRewind(ctx, staleHash(12), staleBlock(10))
		if err != nil {
			t.Fatal(err)
		}
		// The other replica.
		if _, _, err := x.Rewind(ctx, staleHash(12), staleBlock(10)); err != nil {
			t.Fatal(err)
		}
		if err := x.Commit(ctx, staleHash(10), false, []Block{staleBlock(11), staleBlock(12)}, nil, []Change{
			{Block: 11, Key: OSTCKey(staleReg, "a"), Fields: map[string]string{"version": "2"}},
			{Block: 11, Key: OSTCKey(staleReg, "b"), Fields: map[string]string{"version": "1"}},
			{Block: 11, Key: c, Fields: map[string]string{"version": "1"}},
			{Block: 12, Key: StartKey("s"), Fields: map[string]string{"status": "pending"}, Pending: true},
		}); err != nil {
			t.Fatal(err)
		}
		if head, _, _ := x.Head(ctx); head.Hash != staleHash(12) {
			t.Fatalf("head %+v; want block 12's hash again", head)
		}
		for _, k := range keys {
			if k == x.prefix+c {
				t.Fatalf("the caller's read declared %s, which was committed after it", c)
			}
		}
		before := dumpIndex(t, x)
		if _, _, err := x.runRewind(ctx, keys, args); !errors.Is(err, ErrStaleHead) {
			t.Errorf("rewind with the undo lists changed since the read: %v; want ErrStaleHead", err)
		}
		if changed := changedKeys(before, dumpIndex(t, x)); len(changed) > 0 {
			t.Fatalf("the refused rewind changed (or removed, or added) %q", changed)
		}
		if undone, kept, err := x.Rewind(ctx, staleHash(12), staleBlock(10)); err != nil || undone != 4 || kept != 0 {
			t.Fatalf("the retried rewind: %d undone, %d kept, %v; want 4, 0", undone, kept, err)
		}
		assertRewound(t, x, c)
	})
}
