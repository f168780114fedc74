package indexstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisscan"
)

// Index is the indexer's state for one chain in Redis (the keys are in the
// package documentation).
type Index struct {
	rdb    redis.UniversalClient
	prefix string
	// fence is the indexing lease commits and rewinds are fenced by
	// (Fence), shared by copies.
	fence *fenceHolder
}

// New returns the index of chain chainID on rdb (a single server, a
// Cluster or a Sentinel client).
func New(rdb redis.UniversalClient, chainID uint64) *Index {
	return &Index{rdb: rdb, prefix: prefixOf(chainID), fence: new(fenceHolder)}
}

// Block is an indexed block.
type Block struct {
	Number uint64
	Hash   common.Hash
	Parent common.Hash
}

// Head returns the checkpoint; ok is false for an empty index.
func (x *Index) Head(ctx context.Context) (Block, bool, error) {
	m, err := x.rdb.HGetAll(ctx, x.head()).Result()
	if err != nil || m["number"] == "" {
		return Block{}, false, err
	}
	n, err := strconv.ParseUint(m["number"], 10, 64)
	if err != nil {
		return Block{}, false, fmt.Errorf("index head holds number %q", m["number"])
	}
	return Block{Number: n, Hash: common.HexToHash(m["hash"])}, true, nil
}

// Window returns the remembered recent blocks, oldest first.
func (x *Index) Window(ctx context.Context) ([]Block, error) {
	m, err := x.rdb.HGetAll(ctx, x.blocks()).Result()
	if err != nil {
		return nil, err
	}
	out := make([]Block, 0, len(m))
	for num, v := range m {
		n, err := strconv.ParseUint(num, 10, 64)
		h, p, ok := strings.Cut(v, " ")
		if err != nil || !ok {
			return nil, fmt.Errorf("index window holds %s=%q", num, v)
		}
		out = append(out, Block{Number: n, Hash: common.HexToHash(h), Parent: common.HexToHash(p)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// Entry returns an entry's fields by its relative key (nil when there is none).
func (x *Index) Entry(ctx context.Context, key string) (map[string]string, error) {
	m, err := x.rdb.HGetAll(ctx, x.prefix+key).Result()
	if err != nil || len(m) == 0 {
		return nil, err
	}
	return m, nil
}

// Keys lists the relative keys of entries of a kind ("registry:", …); it
// scans the index's own keys, for start-up and status only.
func (x *Index) Keys(ctx context.Context, kind string) ([]string, error) {
	keys, err := redisscan.Keys(ctx, x.rdb, x.prefix+kind+"*")
	for i, k := range keys {
		keys[i] = strings.TrimPrefix(k, x.prefix)
	}
	return keys, err
}

// Count returns how many entries of a kind ("ostc:", "owner:", "start:") exist; it
// scans the index's own keys, for status output only.
func (x *Index) Count(ctx context.Context, kind string) (int, error) {
	keys, err := x.Keys(ctx, kind)
	return len(keys), err
}
