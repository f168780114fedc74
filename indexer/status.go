package indexer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/indexstore"
)

// HeadReader reads the chain's head and its finalized block.
type HeadReader interface {
	BlockNumber(ctx context.Context) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// StatusKeys are the keys of Status in the order they are shown.
var StatusKeys = []string{"chainId", "head", "finalized", "finality", "finalitySource", "final", "finalLag", "checkpoint", "checkpointHash", "lag", "cacheEntries",
	"ownerEntries", "triggerStarts", "pendingTriggers", "mismatches", "ranges"}

// Status is what `xgr index status` and the console show of the chain
// index: the chain's head and finalized block, the index's checkpoint and
// its lag, cache, owner and trigger-start entries, pending triggers,
// mismatches and the learned log ranges. Keys whose value is unknown (no
// finalized block, no checkpoint yet) are absent. An error reading the
// head or the checkpoint is returned; the counts are best effort.
func Status(ctx context.Context, chain HeadReader, chainID uint64, idx *indexstore.Index) (map[string]any, error) {
	st := map[string]any{"chainId": chainID}
	tip, err := chain.BlockNumber(ctx)
	if err != nil {
		return nil, err
	}
	st["head"] = tip
	if h, err := chain.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber))); err == nil && h != nil {
		st["finalized"] = h.Number.Uint64()
	}
	if head, ok, err := idx.Head(ctx); err != nil {
		return nil, err
	} else if ok {
		st["checkpoint"], st["checkpointHash"], st["lag"] = head.Number, head.Hash.Hex(), int64(tip)-int64(head.Number)
	}
	st["cacheEntries"], _ = idx.Count(ctx, "ostc:")
	st["ownerEntries"], _ = idx.Count(ctx, "owner:")
	st["triggerStarts"], _ = idx.Count(ctx, "start:")
	st["pendingTriggers"], _ = idx.PendingCount(ctx)
	mm, _ := idx.Mismatches(ctx)
	st["mismatches"] = len(mm)
	st["ranges"], _ = idx.Ranges(ctx)
	return st, nil
}

// AddFinality adds to a Status what a trigger's finality rule makes of the
// chain: the rule ("finality": "finalized block", "12 confirmations" …),
// the newest block whose logs may start sessions ("final") and how far it
// is behind the head ("finalLag"). A trigger log waits until its block is
// at or below final.
func AddFinality(ctx context.Context, st map[string]any, chain HeadReader, f Finality) error {
	v, err := f.View(ctx, chain)
	if err != nil {
		return err
	}
	rule := v.Rule
	if v.Fallback {
		rule += " (auto: the node has no finalized tag)"
	}
	st["finality"] = rule
	if v.OK {
		st["final"], st["finalLag"] = v.Final, v.Lag()
	}
	return nil
}
