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

	"github.com/xgr-sidecar/xgr/indexstore"
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

// DefaultCommitLogs is how many logs (about as many cache changes) one
// commit covers at most unless Follower.CommitLogs says otherwise.
const DefaultCommitLogs = 1000

// rangeRead is one range of blocks read from the node and verified, ready
// to commit: a whole range, or one part of a range with many logs.
type rangeRead struct {
	from, to uint64
	// first and last are the ends (for a whole range read before its logs).
	first, last indexstore.Block
	// anchor is the last block of the range the logs were read for, read
	// before them: while the chain still holds it, it holds every block
	// the logs came from.
	anchor  indexstore.Block
	blocks  map[uint64]indexstore.Block
	changes []indexstore.Change
	// mismatches are recorded when the part commits.
	mismatches []mismatch
	scope      scope
	// rest is what follows the part in its range, its logs read and not
	// yet decoded or verified (nil for a range's last part).
	rest *span
	// more is set on a part read ahead when the prefetch that read it goes
	// on with the next part of the same range.
	more bool
	// continued is set on the parts after a range's first: their logs were
	// read with the first's, so they teach the range sizer nothing.
	continued bool
	// nonCanonical is set when the node answered from two chains (a log
	// from a block that is not the canonical one at its height).
	nonCanonical bool
	// logsErr is eth_getLogs failing; the range sizer judges it.
	logsErr error
}

// span is blocks from..to whose logs are read (and checked to come from the
// canonical blocks), not yet turned into changes.
type span struct {
	from, to    uint64
	first, last indexstore.Block
	anchor      indexstore.Block
	blocks      map[uint64]indexstore.Block
	logs        []types.Log
	// cuts are the last blocks of the parts but the last, ascending.
	cuts      []uint64
	scope     scope
	continued bool
}

// readRange reads blocks from..to: their ends, the registry and trigger
// logs, and the headers of the blocks that go into the window. It returns
// the first part verified (the whole range unless it has more than
// CommitLogs logs: see commitCuts), with the rest left in its rest.
// expectParent, when not nil, is the hash the range must continue; a range
// that does not is returned with only its ends read.
func (f *Follower) readRange(ctx context.Context, sc scope, from, to, tip uint64, expectParent *common.Hash) (*rangeRead, error) {
	r := &rangeRead{from: from, to: to, scope: sc, blocks: map[uint64]indexstore.Block{}}
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
	r.anchor = r.last
	r.blocks[from], r.blocks[to] = r.first, r.last
	if expectParent != nil && r.first.Parent != *expectParent {
		return r, nil
	}
	all, err := f.logs(ctx, sc, from, to)
	if err != nil {
		r.logsErr = err
		return r, nil
	}
	logs := all[:0]
	for _, l := range all {
		if !l.Removed {
			logs = append(logs, l)
		}
	}
	cuts := commitCuts(logs, f.commitLogs())
	// Every block that holds a log goes into the window; near the tip every
	// block does, so a shallow reorg finds its common ancestor. The first
	// block of each part after the first is read too: it must continue the
	// part before it.
	var need []uint64
	ask := func(n uint64) {
		if _, ok := r.blocks[n]; !ok {
			r.blocks[n] = indexstore.Block{}
			need = append(need, n)
		}
	}
	if tip-to < uint64(f.Window) {
		for n := max(from+1, to+1-min(to+1, uint64(f.Window))); n < to; n++ {
			ask(n)
		}
	}
	for _, l := range logs {
		ask(l.BlockNumber)
	}
	for _, c := range cuts {
		ask(c + 1)
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
	for _, l := range logs {
		if r.blocks[l.BlockNumber].Hash != l.BlockHash {
			// The node answered from two chains: a reorg is under way.
			f.Log.Info("log from a non-canonical block; retrying", "block", l.BlockNumber)
			r.nonCanonical = true
			return r, nil
		}
	}
	return f.verifySpan(ctx, &span{from: from, to: to, first: r.first, last: r.last, anchor: r.anchor, blocks: r.blocks,
		logs: logs, cuts: cuts, scope: sc})
}

// verifySpan turns the logs of the first part of s into cache changes,
// verifies them and returns the part ready to commit, with the rest of s
// in its rest.
func (f *Follower) verifySpan(ctx context.Context, s *span) (*rangeRead, error) {
	part, rest := s.split()
	changes, reads, err := f.decodeLogs(ctx, part.scope, part.logs)
	if err != nil {
		return nil, err
	}
	mismatches, err := f.verifyAll(ctx, reads, changes)
	if err != nil {
		return nil, err
	}
	// Drop the placeholders of superseded writes.
	kept := changes[:0]
	for _, c := range changes {
		if c.Key != "" {
			kept = append(kept, c)
		}
	}
	fresh, err := f.newRules(ctx, part.scope, kept, part.last)
	if err != nil {
		return nil, err
	}
	if len(fresh) > 0 {
		// The rest's logs were read without the rules the part now
		// follows: the next Step reads them again, with those rules.
		rest = nil
	}
	return &rangeRead{from: part.from, to: part.to, first: part.first, last: part.last, anchor: part.anchor, blocks: part.blocks,
		changes: append(kept, fresh...), mismatches: mismatches, scope: part.scope, rest: rest, continued: part.continued}, nil
}

// decodeLogs turns logs into cache changes, in log order: trigger starts,
// discovered registries, rule updates, owners, and a placeholder (empty
// Key) for each registry write, listed in reads, which verifyAll fills.
func (f *Follower) decodeLogs(ctx context.Context, sc scope, logs []types.Log) ([]indexstore.Change, []pendingRead, error) {
	var changes []indexstore.Change
	var reads []pendingRead
	for _, l := range logs {
		starts, err := f.starts(l)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, starts...)
		if f.Discover && len(l.Topics) > 0 && l.Topics[0] == TopicXRC729Deployed {
			changes = append(changes, indexstore.Change{Block: l.BlockNumber, Key: "registry:" + strings.ToLower(l.Address.Hex()),
				Fields: map[string]string{"address": l.Address.Hex(), "block": strconv.FormatUint(l.BlockNumber, 10), "tx": l.TxHash.Hex()}})
			continue
		}
		if rc, ok, err := f.ruleLog(ctx, sc, l); err != nil {
			return nil, nil, err
		} else if ok {
			changes = append(changes, rc)
			continue
		}
		if !f.followedIn(sc, l.Address) {
			continue
		}
		if o, ok, err := DecodeOwnership(l); err != nil {
			return nil, nil, err
		} else if ok {
			changes = append(changes, o.Entry())
			continue
		}
		c, ok, err := Decode(l)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			// Placeholder; filled by the batched reads, in log order.
			changes = append(changes, indexstore.Change{})
			reads = append(reads, pendingRead{at: len(changes) - 1, c: c})
		}
	}
	return changes, reads, nil
}

// split cuts s after its first cut into the first part and the rest (nil
// when s has no cut). The rest has its own blocks and scope.
func (s *span) split() (part, rest *span) {
	if len(s.cuts) == 0 {
		return s, nil
	}
	c := s.cuts[0]
	k := 0
	for k < len(s.logs) && s.logs[k].BlockNumber <= c {
		k++
	}
	part = &span{from: s.from, to: c, first: s.first, last: s.blocks[c], anchor: s.anchor, blocks: map[uint64]indexstore.Block{},
		logs: s.logs[:k:k], scope: s.scope, continued: s.continued}
	rest = &span{from: c + 1, to: s.to, first: s.blocks[c+1], last: s.last, anchor: s.anchor, blocks: map[uint64]indexstore.Block{},
		logs: s.logs[k:], cuts: s.cuts[1:], scope: s.scope.clone(), continued: true}
	for n, b := range s.blocks {
		if n <= c {
			part.blocks[n] = b
		} else {
			rest.blocks[n] = b
		}
	}
	return part, rest
}

// commitCuts splits a range's logs (sorted by block) into parts at block
// boundaries — the first of at most a quarter of limit logs, so that its
// commit starts early, the others of at most limit; a block with more is a
// part of its own — and returns the last block of each part but the last.
func commitCuts(logs []types.Log, limit int) []uint64 {
	var cuts []uint64
	n, prev, most := 0, uint64(0), max(1, limit/4)
	for i := 0; i < len(logs); {
		b, count := logs[i].BlockNumber, 0
		for ; i < len(logs) && logs[i].BlockNumber == b; i++ {
			count++
		}
		if n > 0 && n+count > most {
			cuts, n, most = append(cuts, prev), 0, limit
		}
		n, prev = n+count, b
	}
	return cuts
}

func indexBlock(h *types.Header) indexstore.Block {
	return indexstore.Block{Number: h.Number.Uint64(), Hash: h.Hash(), Parent: h.ParentHash}
}

// list is the range's window blocks, ascending.
func (r *rangeRead) list() []indexstore.Block {
	out := make([]indexstore.Block, 0, len(r.blocks))
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
