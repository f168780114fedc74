package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"
)

// Index is the indexer's state for one chain in Redis: the checkpoint, the
// window of recent blocks, per-block undo lists and the verified
// orchestration cache. All of it shares the hash tag {idx:<chainId>}, so
// every transition is one atomic script on one Cluster slot.
//
//	xgr:{idx:C}:head               hash    number, hash: the last indexed block
//	xgr:{idx:C}:blocks             hash    number → "hash parent" of recent blocks
//	xgr:{idx:C}:undo:<n>           list    how to undo block n's cache changes
//	xgr:{idx:C}:ostc:<reg>:<id>    hash    a cache entry: json, hash, version, block, valid, problems
//	xgr:{idx:C}:owner:<reg>        hash    a registry's owner: owner (lower-case 0x address), block, tx
//	xgr:{idx:C}:start:<key>        hash    a trigger start: status (pending|started), block, owner, payload, root, …
//	xgr:{idx:C}:pending            zset    trigger starts not yet started, by block
//	xgr:{idx:C}:mismatch           list    hash mismatches seen (newest last, capped)
type Index struct {
	rdb    redis.UniversalClient
	prefix string
}

// Index returns the index of a chain.
func (s *Store) Index(chainID uint64) *Index {
	return &Index{rdb: s.rdb, prefix: "xgr:{idx:" + strconv.FormatUint(chainID, 10) + "}:"}
}

func (x *Index) head() string         { return x.prefix + "head" }
func (x *Index) blocks() string       { return x.prefix + "blocks" }
func (x *Index) undo(n uint64) string { return x.prefix + "undo:" + strconv.FormatUint(n, 10) }
func (x *Index) mismatches() string   { return x.prefix + "mismatch" }
func (x *Index) pending() string      { return x.prefix + "pending" }

// OSTCKey is the cache entry of an orchestration, relative to the index.
func OSTCKey(registry common.Address, id string) string {
	return "ostc:" + strings.ToLower(registry.Hex()) + ":" + id
}

// OwnerKey is the cache entry of a registry's owner, relative to the index.
func OwnerKey(registry common.Address) string {
	return "owner:" + strings.ToLower(registry.Hex())
}

// StartKey is the record of a trigger start, relative to the index.
func StartKey(key string) string { return "start:" + key }

// IndexBlock is an indexed block.
type IndexBlock struct {
	Number uint64
	Hash   common.Hash
	Parent common.Hash
}

// Head returns the checkpoint; ok is false for an empty index.
func (x *Index) Head(ctx context.Context) (IndexBlock, bool, error) {
	m, err := x.rdb.HGetAll(ctx, x.head()).Result()
	if err != nil || len(m) == 0 {
		return IndexBlock{}, false, err
	}
	n, err := strconv.ParseUint(m["number"], 10, 64)
	if err != nil {
		return IndexBlock{}, false, fmt.Errorf("index head holds number %q", m["number"])
	}
	return IndexBlock{Number: n, Hash: common.HexToHash(m["hash"])}, true, nil
}

// Window returns the remembered recent blocks, oldest first.
func (x *Index) Window(ctx context.Context) ([]IndexBlock, error) {
	m, err := x.rdb.HGetAll(ctx, x.blocks()).Result()
	if err != nil {
		return nil, err
	}
	out := make([]IndexBlock, 0, len(m))
	for num, v := range m {
		n, err := strconv.ParseUint(num, 10, 64)
		h, p, ok := strings.Cut(v, " ")
		if err != nil || !ok {
			return nil, fmt.Errorf("index window holds %s=%q", num, v)
		}
		out = append(out, IndexBlock{Number: n, Hash: common.HexToHash(h), Parent: common.HexToHash(p)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// Change is one change a block makes to the index: a cache entry
// (OSTCKey, OwnerKey, …) or a trigger start (StartKey, with Pending set).
type Change struct {
	Block uint64
	// Key is relative to the index (OSTCKey, OwnerKey, StartKey).
	Key string
	// Delete removes the entry; otherwise it becomes Fields.
	Delete bool
	Fields map[string]string
	// Pending adds the entry to the set of trigger starts to run.
	Pending bool
}

// ErrStaleHead: the checkpoint moved under the caller (another writer, or a
// concurrent rewind); nothing was written.
var ErrStaleHead = errors.New("index checkpoint moved")

// Commit records a batch of blocks (ascending, contiguous with the
// checkpoint prev; the last one becomes the new checkpoint), the cache
// changes they make and the blocks that leave the window, atomically.
func (x *Index) Commit(ctx context.Context, prev common.Hash, empty bool, blocks []IndexBlock, pruned []uint64, changes []Change) error {
	if len(blocks) == 0 {
		return nil
	}
	keys := make([]string, 0, 3+len(blocks)+len(pruned)+len(changes))
	keys = append(keys, x.head(), x.blocks(), x.pending())
	args := make([]any, 0, 4+3*len(blocks)+len(pruned)+len(changes)*(3+16))
	args = append(args, nil, len(blocks), len(pruned), len(changes)) // args[0]: the checkpoint, below
	pos := make(map[uint64]int, len(blocks))
	for i, b := range blocks {
		args = append(args, b.Number, b.Hash.Hex(), b.Parent.Hex())
		keys = append(keys, x.undo(b.Number))
		pos[b.Number] = i + 1
	}
	for _, n := range pruned {
		args = append(args, n)
		keys = append(keys, x.undo(n))
	}
	for _, c := range changes {
		i, ok := pos[c.Block]
		if !ok {
			return fmt.Errorf("index commit: a change of block %d, which is not in the batch", c.Block)
		}
		flags := ""
		if c.Delete {
			flags = "d"
		}
		if c.Pending {
			flags += "p"
		}
		args = append(args, i, flags, len(c.Fields))
		for f, v := range c.Fields {
			args = append(args, f, v)
		}
		keys = append(keys, x.prefix+c.Key)
	}
	prevArg := prev.Hex()
	if empty {
		prevArg = ""
	}
	args[0] = prevArg
	if err := scriptIndexCommit.Run(ctx, x.rdb, keys, args...).Err(); err != nil {
		if strings.Contains(err.Error(), "STALE_HEAD") {
			return fmt.Errorf("index commit: %w", ErrStaleHead)
		}
		return fmt.Errorf("index commit: %w", err)
	}
	return nil
}

// Rewind undoes the changes of every window block above ancestor and makes
// ancestor the checkpoint. It returns how many changes were undone and how
// many trigger starts were kept because their sessions had started.
func (x *Index) Rewind(ctx context.Context, head common.Hash, ancestor IndexBlock) (undone, kept int, err error) {
	window, err := x.Window(ctx)
	if err != nil {
		return 0, 0, err
	}
	var rewound []uint64
	for i := len(window) - 1; i >= 0 && window[i].Number > ancestor.Number; i-- {
		rewound = append(rewound, window[i].Number)
	}
	keys := []string{x.head(), x.blocks(), x.pending()}
	named := map[string]bool{}
	var entries []string
	for _, n := range rewound {
		keys = append(keys, x.undo(n))
		list, err := x.rdb.LRange(ctx, x.undo(n), 0, -1).Result()
		if err != nil {
			return 0, 0, err
		}
		for _, u := range list {
			var rec struct {
				K string `json:"k"`
			}
			if err := json.Unmarshal([]byte(u), &rec); err != nil {
				return 0, 0, fmt.Errorf("undo list of block %d holds %q", n, u)
			}
			if !named[rec.K] {
				named[rec.K] = true
				entries = append(entries, rec.K)
			}
		}
	}
	keys = append(keys, entries...)
	res, err := scriptIndexRewind.Run(ctx, x.rdb, keys, head.Hex(), ancestor.Number, ancestor.Hash.Hex(), len(rewound)).Int64Slice()
	if err != nil {
		if strings.Contains(err.Error(), "STALE_HEAD") {
			return 0, 0, fmt.Errorf("index rewind: %w", ErrStaleHead)
		}
		return 0, 0, fmt.Errorf("index rewind: %w", err)
	}
	return int(res[0]), int(res[1]), nil
}

// Entry returns an entry's fields by its relative key (nil when there is none).
func (x *Index) Entry(ctx context.Context, key string) (map[string]string, error) {
	m, err := x.rdb.HGetAll(ctx, x.prefix+key).Result()
	if err != nil || len(m) == 0 {
		return nil, err
	}
	return m, nil
}

// RecordMismatch appends a hash mismatch record (the list keeps the last 1,000).
func (x *Index) RecordMismatch(ctx context.Context, record string) error {
	pipe := x.rdb.TxPipeline()
	pipe.RPush(ctx, x.mismatches(), record)
	pipe.LTrim(ctx, x.mismatches(), -1000, -1)
	_, err := pipe.Exec(ctx)
	return err
}

// Mismatches returns the recorded hash mismatches, oldest first.
func (x *Index) Mismatches(ctx context.Context) ([]string, error) {
	return x.rdb.LRange(ctx, x.mismatches(), 0, -1).Result()
}

// PendingStarts returns the relative keys of trigger starts recorded at or
// below block that have not started yet, oldest block first.
func (x *Index) PendingStarts(ctx context.Context, block uint64, limit int) ([]string, error) {
	keys, err := x.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: x.pending(), Start: "-inf", Stop: strconv.FormatUint(block, 10), ByScore: true, Count: int64(limit)}).Result()
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		keys[i] = strings.TrimPrefix(k, x.prefix)
	}
	return keys, nil
}

// MarkStarted records that a trigger start created its session; a rewind
// keeps it from then on.
func (x *Index) MarkStarted(ctx context.Context, key string, fields map[string]string) error {
	pipe := x.rdb.TxPipeline()
	args := []any{"status", "started"}
	for k, v := range fields {
		args = append(args, k, v)
	}
	pipe.HSet(ctx, x.prefix+key, args...)
	pipe.ZRem(ctx, x.pending(), x.prefix+key)
	_, err := pipe.Exec(ctx)
	return err
}

// Count returns how many entries of a kind ("ostc:", "owner:", "start:") exist; it
// scans the index's own keys, for status output only.
func (x *Index) Count(ctx context.Context, kind string) (int, error) {
	keys, err := x.Keys(ctx, kind)
	return len(keys), err
}

// PendingCount is the number of trigger starts waiting for confirmation.
func (x *Index) PendingCount(ctx context.Context) (int64, error) {
	return x.rdb.ZCard(ctx, x.pending()).Result()
}

// SaveRange remembers the log range an endpoint accepts.
func (x *Index) SaveRange(ctx context.Context, endpoint string, size uint64) error {
	return x.rdb.HSet(ctx, x.prefix+"ranges", endpoint, size).Err()
}

// Ranges returns the learned log ranges by endpoint.
func (x *Index) Ranges(ctx context.Context) (map[string]uint64, error) {
	m, err := x.rdb.HGetAll(ctx, x.prefix+"ranges").Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(m))
	for k, v := range m {
		out[k], _ = strconv.ParseUint(v, 10, 64)
	}
	return out, nil
}

// Keys lists the relative keys of entries of a kind ("registry:", …); it
// scans the index's own keys, for start-up and status only.
func (x *Index) Keys(ctx context.Context, kind string) ([]string, error) {
	keys, err := scanAll(ctx, x.rdb, x.prefix+kind+"*")
	for i, k := range keys {
		keys[i] = strings.TrimPrefix(k, x.prefix)
	}
	return keys, err
}

// scanAll scans every master of a cluster (SCAN is per node), or the one server.
func scanAll(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	var mu sync.Mutex
	var out []string
	scan := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			out = append(out, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return out, c.ForEachMaster(ctx, scan)
	case *redis.Client:
		return out, scan(ctx, c)
	}
	iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		out = append(out, iter.Val())
	}
	return out, iter.Err()
}
