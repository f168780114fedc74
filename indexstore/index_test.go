package indexstore_test

import (
	"context"
	"errors"
	"math/big"
	"reflect"
	"sort"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

var reg = common.HexToAddress("0x00000000000000000000000000000000000000AA")

func hashOf(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n + 1)) }

func block(n uint64) indexstore.Block {
	return indexstore.Block{Number: n, Hash: hashOf(n), Parent: hashOf(n - 1)}
}

// TestKeysAreTheDocumentedOnes pins the key of every kind of index state,
// byte for byte: the keys are read back by replicas of other versions and
// by operators with redis-cli (docs/redis.md), so they must not move.
func TestKeysAreTheDocumentedOnes(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		idx := indexstore.New(rdb, 31337)
		one := map[string]string{"block": "10"}
		if err := idx.Commit(ctx, common.Hash{}, true, []indexstore.Block{block(10), block(11)}, nil, []indexstore.Change{
			{Block: 10, Key: indexstore.OSTCKey(reg, "flow"), Fields: map[string]string{"json": "{}", "hash": hashOf(1).Hex()}},
			{Block: 10, Key: indexstore.OwnerKey(reg), Fields: one},
			// The indexer's own kinds (indexer.RuleKey and its discovered registries).
			{Block: 11, Key: "registry:0x00000000000000000000000000000000000000aa", Fields: one},
			{Block: 11, Key: "rule:0x00000000000000000000000000000000000000b1", Fields: one},
			{Block: 11, Key: indexstore.StartKey("31337:0xab:3:order"), Fields: map[string]string{"status": "pending"}, Pending: true},
		}); err != nil {
			t.Fatal(err)
		}
		if err := idx.RecordMismatch(ctx, `{"block":10}`); err != nil {
			t.Fatal(err)
		}
		if err := idx.SaveRange(ctx, "http://node", 500); err != nil {
			t.Fatal(err)
		}
		got, err := redisscan.Keys(ctx, rdb, "*")
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		want := []string{
			"xgr:{idx:31337}:blocks",
			"xgr:{idx:31337}:head",
			"xgr:{idx:31337}:mismatch",
			"xgr:{idx:31337}:ostc:0x00000000000000000000000000000000000000aa:flow",
			"xgr:{idx:31337}:owner:0x00000000000000000000000000000000000000aa",
			"xgr:{idx:31337}:pending",
			"xgr:{idx:31337}:ranges",
			"xgr:{idx:31337}:registry:0x00000000000000000000000000000000000000aa",
			"xgr:{idx:31337}:rule:0x00000000000000000000000000000000000000b1",
			"xgr:{idx:31337}:start:31337:0xab:3:order",
			"xgr:{idx:31337}:undo:10",
			"xgr:{idx:31337}:undo:11",
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("index keys:\n got %q\nwant %q", got, want)
		}
		head, _ := rdb.HGetAll(ctx, "xgr:{idx:31337}:head").Result()
		if head["number"] != "11" || head["hash"] != hashOf(11).Hex() {
			t.Fatalf("head %v: want number 11, hash %s", head, hashOf(11).Hex())
		}
		if w, _ := rdb.HGet(ctx, "xgr:{idx:31337}:blocks", "11").Result(); w != hashOf(11).Hex()+" "+hashOf(10).Hex() {
			t.Fatalf("window entry of block 11 is %q, want \"hash parent\"", w)
		}
		if p, _ := rdb.ZRangeWithScores(ctx, "xgr:{idx:31337}:pending", 0, -1).Result(); len(p) != 1 ||
			p[0].Member != "xgr:{idx:31337}:start:31337:0xab:3:order" || p[0].Score != 11 {
			t.Fatalf("pending set %v: want the start's full key at score 11", p)
		}
		if keys, err := idx.PendingStarts(ctx, 11, 10); err != nil || !reflect.DeepEqual(keys, []string{"start:31337:0xab:3:order"}) {
			t.Fatalf("pending starts %q, %v", keys, err)
		}
		if n, err := idx.Count(ctx, "ostc:"); n != 1 || err != nil {
			t.Fatalf("%d cache entries, %v; want 1", n, err)
		}
		if r, err := idx.Ranges(ctx); err != nil || r["http://node"] != 500 {
			t.Fatalf("ranges %v, %v", r, err)
		}
	})
}

// TestRewindRestoresTheAncestor: a rewind puts every entry back as it was
// when the ancestor was the checkpoint, keeps a trigger start whose session
// started, and forgets the rewound blocks.
func TestRewindRestoresTheAncestor(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		idx := indexstore.New(rdb, 7)
		a, b := indexstore.OSTCKey(reg, "a"), indexstore.OSTCKey(reg, "b")
		started, waiting := indexstore.StartKey("s1"), indexstore.StartKey("s2")
		if err := idx.Commit(ctx, common.Hash{}, true, []indexstore.Block{block(10)}, nil, []indexstore.Change{
			{Block: 10, Key: a, Fields: map[string]string{"version": "1"}},
		}); err != nil {
			t.Fatal(err)
		}
		if err := idx.Commit(ctx, hashOf(10), false, []indexstore.Block{block(11), block(12)}, nil, []indexstore.Change{
			{Block: 11, Key: a, Fields: map[string]string{"version": "2"}},
			{Block: 11, Key: b, Fields: map[string]string{"version": "1"}},
			{Block: 12, Key: started, Fields: map[string]string{"status": "pending"}, Pending: true},
			{Block: 12, Key: waiting, Fields: map[string]string{"status": "pending"}, Pending: true},
		}); err != nil {
			t.Fatal(err)
		}
		if err := idx.MarkStarted(ctx, started, map[string]string{"root": "1"}); err != nil {
			t.Fatal(err)
		}
		undone, kept, err := idx.Rewind(ctx, hashOf(12), block(10))
		if err != nil {
			t.Fatal(err)
		}
		if undone != 3 || kept != 1 {
			t.Fatalf("rewind undid %d changes and kept %d starts, want 3 and 1", undone, kept)
		}
		if e, _ := idx.Entry(ctx, a); e["version"] != "1" {
			t.Fatalf("entry a after the rewind: %v, want version 1", e)
		}
		for _, k := range []string{b, waiting} {
			if e, _ := idx.Entry(ctx, k); e != nil {
				t.Fatalf("entry %s outlived the rewind of its block: %v", k, e)
			}
		}
		if e, _ := idx.Entry(ctx, started); e["status"] != "started" {
			t.Fatalf("the started trigger start after the rewind: %v", e)
		}
		if n, _ := idx.PendingCount(ctx); n != 0 {
			t.Fatalf("%d pending starts after the rewind, want 0", n)
		}
		head, ok, err := idx.Head(ctx)
		if err != nil || !ok || head.Number != 10 || head.Hash != hashOf(10) {
			t.Fatalf("head after the rewind: %+v %v %v, want block 10", head, ok, err)
		}
		if w, _ := idx.Window(ctx); len(w) != 1 || w[0] != block(10) {
			t.Fatalf("window after the rewind: %+v, want block 10 only", w)
		}
		for _, n := range []string{"11", "12"} {
			if ex, _ := rdb.Exists(ctx, "xgr:{idx:7}:undo:"+n).Result(); ex != 0 {
				t.Fatalf("the undo list of rewound block %s is still there", n)
			}
		}
	})
}

// TestCommitOnAStaleHeadWritesNothing: a commit on top of a checkpoint that
// has moved is refused with ErrStaleHead and changes nothing.
func TestCommitOnAStaleHeadWritesNothing(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.StartRedis(t).Client()
	idx := indexstore.New(rdb, 7)
	if err := idx.Commit(ctx, common.Hash{}, true, []indexstore.Block{block(10)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := rdb.Keys(ctx, "*").Result()
	err := idx.Commit(ctx, hashOf(9), false, []indexstore.Block{block(11)}, nil, []indexstore.Change{
		{Block: 11, Key: indexstore.OSTCKey(reg, "a"), Fields: map[string]string{"version": "1"}},
	})
	if !errors.Is(err, indexstore.ErrStaleHead) {
		t.Fatalf("commit on a stale head: %v, want ErrStaleHead", err)
	}
	if after, _ := rdb.Keys(ctx, "*").Result(); len(after) != len(before) {
		t.Fatalf("the refused commit changed the keys from %q to %q", before, after)
	}
	if head, _, _ := idx.Head(ctx); head.Number != 10 {
		t.Fatalf("head %d after a refused commit, want 10", head.Number)
	}
}
