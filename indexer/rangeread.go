package indexer

import (
	"context"
	"maps"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// scope is what a range is read for besides the configured registries:
// the registries discovered and the rules followed so far. A range is read
// with a copy, which it extends; the follower adopts that copy when it
// commits the range.
type scope struct {
	discovered map[common.Address]bool
	rules      map[common.Address]bool
}

func (s scope) clone() scope {
	return scope{discovered: maps.Clone(s.discovered), rules: maps.Clone(s.rules)}
}

// rangeRead is one range of blocks read from the node and verified, ready
// to commit.
type rangeRead struct {
	from, to uint64
	// first and last are the range's ends, read before its logs.
	first, last joinstore.IndexBlock
	blocks      map[uint64]joinstore.IndexBlock
	changes     []joinstore.Change
	scope       scope
	// nonCanonical is set when the node answered from two chains (a log
	// from a block that is not the canonical one at its height).
	nonCanonical bool
	// logsErr is eth_getLogs failing; the range sizer judges it.
	logsErr error
}

// readRange reads blocks from..to: their ends, the registry and trigger
// logs, and what the logs mean for the cache (verified with batched reads).
// expectParent, when not nil, is the hash the range must continue; a range
// that does not is returned with only its ends read.
func (f *Follower) readRange(ctx context.Context, sc scope, from, to, tip uint64, expectParent *common.Hash) (*rangeRead, error) {
	r := &rangeRead{from: from, to: to, scope: sc, blocks: map[uint64]joinstore.IndexBlock{}}
	// The ends come first: if the chain still has the same block at `to`
	// later, it had it while the logs were read.
	ends := []uint64{from}
	if to != from {
		ends = append(ends, to)
	}
	hs, err := f.batcher.Headers(ctx, ends)
	if err != nil {
		return nil, err
	}
	r.first, r.last = indexBlock(hs[0]), indexBlock(hs[len(hs)-1])
	r.blocks[from], r.blocks[to] = r.first, r.last
	if expectParent != nil && r.first.Parent != *expectParent {
		return r, nil
	}
	logs, err := f.logs(ctx, sc, from, to)
	if err != nil {
		r.logsErr = err
		return r, nil
	}
	// Every block that holds a log goes into the window; near the tip every
	// block does, so a shallow reorg finds its common ancestor.
	var need []uint64
	if tip-to < uint64(f.Window) {
		for n := max(from+1, to+1-min(to+1, uint64(f.Window))); n < to; n++ {
			need = append(need, n)
		}
	}
	for _, l := range logs {
		if _, ok := r.blocks[l.BlockNumber]; !ok && !l.Removed {
			r.blocks[l.BlockNumber] = joinstore.IndexBlock{}
			need = append(need, l.BlockNumber)
		}
	}
	if len(need) > 0 {
		hs, err := f.batcher.Headers(ctx, need)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			r.blocks[h.Number.Uint64()] = indexBlock(h)
		}
	}
	var changes []joinstore.Change
	var reads []pendingRead
	for _, l := range logs {
		if l.Removed {
			continue
		}
		if r.blocks[l.BlockNumber].Hash != l.BlockHash {
			// The node answered from two chains: a reorg is under way.
			f.Log.Info("log from a non-canonical block; retrying", "block", l.BlockNumber)
			r.nonCanonical = true
			return r, nil
		}
		starts, err := f.starts(l)
		if err != nil {
			return nil, err
		}
		changes = append(changes, starts...)
		if f.Discover && len(l.Topics) > 0 && l.Topics[0] == TopicXRC729Deployed {
			changes = append(changes, joinstore.Change{Block: l.BlockNumber, Key: "registry:" + strings.ToLower(l.Address.Hex()),
				Fields: map[string]string{"address": l.Address.Hex(), "block": strconv.FormatUint(l.BlockNumber, 10), "tx": l.TxHash.Hex()}})
			continue
		}
		if rc, ok, err := f.ruleLog(ctx, sc, l); err != nil {
			return nil, err
		} else if ok {
			changes = append(changes, rc)
			continue
		}
		if !f.followedIn(sc, l.Address) {
			continue
		}
		if o, ok, err := DecodeOwnership(l); err != nil {
			return nil, err
		} else if ok {
			changes = append(changes, o.Entry())
			continue
		}
		c, ok, err := Decode(l)
		if err != nil {
			return nil, err
		}
		if ok {
			// Placeholder; filled by the batched reads below, in log order.
			changes = append(changes, joinstore.Change{})
			reads = append(reads, pendingRead{at: len(changes) - 1, c: c})
		}
	}
	if err := f.verifyAll(ctx, reads, changes); err != nil {
		return nil, err
	}
	// Drop the placeholders of superseded writes.
	kept := changes[:0]
	for _, c := range changes {
		if c.Key != "" {
			kept = append(kept, c)
		}
	}
	fresh, err := f.newRules(ctx, sc, kept, r.last)
	if err != nil {
		return nil, err
	}
	r.changes = append(kept, fresh...)
	return r, nil
}

func indexBlock(h *types.Header) joinstore.IndexBlock {
	return joinstore.IndexBlock{Number: h.Number.Uint64(), Hash: h.Hash(), Parent: h.ParentHash}
}

// list is the range's window blocks, ascending.
func (r *rangeRead) list() []joinstore.IndexBlock {
	out := make([]joinstore.IndexBlock, 0, len(r.blocks))
	for _, b := range r.blocks {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// logs fetches the registry and trigger logs of a range: one query for the
// registries and one per trigger contract. Registries that announce
// themselves in the range are added to sc.
func (f *Follower) logs(ctx context.Context, sc scope, from, to uint64) ([]types.Log, error) {
	q := func(addrs []common.Address, topics []common.Hash) ([]types.Log, error) {
		return f.Chain.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
			Addresses: addrs, Topics: [][]common.Hash{topics},
		})
	}
	var out []types.Log
	if f.Discover {
		logs, err := q(nil, []common.Hash{TopicXRC729Deployed})
		if err != nil {
			return nil, err
		}
		for _, l := range logs {
			if !l.Removed && !f.followedIn(sc, l.Address) {
				sc.discovered[l.Address] = true // committed with the range
			}
		}
		out = append(out, logs...)
	}
	if regs := f.registriesIn(sc); len(regs) > 0 {
		logs, err := q(regs, []common.Hash{TopicOSTCUpdated, TopicOSTCDeletedIndexed, TopicOwnershipTransferred})
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
	}
	if len(sc.rules) > 0 {
		addrs := make([]common.Address, 0, len(sc.rules))
		for a := range sc.rules {
			addrs = append(addrs, a)
		}
		sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
		logs, err := q(addrs, []common.Hash{TopicXRC137Updated})
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
	}
	for _, t := range f.Triggers {
		logs, err := q([]common.Address{t.Contract}, []common.Hash{t.Event.ID})
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].BlockNumber != out[j].BlockNumber {
			return out[i].BlockNumber < out[j].BlockNumber
		}
		return out[i].Index < out[j].Index
	})
	return dedupe(out), nil
}

// dedupe drops a log listed twice (a contract that is both a registry and a
// trigger source).
func dedupe(logs []types.Log) []types.Log {
	out := logs[:0]
	for i, l := range logs {
		if i > 0 && l.BlockHash == logs[i-1].BlockHash && l.Index == logs[i-1].Index {
			continue
		}
		out = append(out, l)
	}
	return out
}

// followedIn reports whether a is a configured or discovered registry.
func (f *Follower) followedIn(sc scope, a common.Address) bool {
	for _, r := range f.Registries {
		if r == a {
			return true
		}
	}
	return sc.discovered[a]
}

// registriesIn are the configured and the discovered registries, sorted.
func (f *Follower) registriesIn(sc scope) []common.Address {
	out := append([]common.Address(nil), f.Registries...)
	for a := range sc.discovered {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Cmp(out[j]) < 0 })
	return out
}
