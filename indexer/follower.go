package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// Follower follows XRC-729 registries on one chain into the verified cache.
// Each Step reads one range of blocks above the checkpoint, verifies that it
// continues the indexed chain (rewinding to the common ancestor after a
// reorg), turns the registry logs into cache changes — fetching each
// orchestration at the log's block and checking its keccak256 against the
// event and getOSTCMeta, and recording each OwnershipTransferred as the
// registry's owner entry — and commits the range atomically.
type Follower struct {
	Chain   chain.Backend
	ChainID uint64
	Index   *joinstore.Index
	// Registries are the XRC-729 contracts to follow.
	Registries []common.Address
	// Discover also follows every XRC-729 registry that announces itself
	// with XRC729Deployed (remembered in the index, undone by reorgs).
	Discover   bool
	discovered map[common.Address]bool
	// FollowRules caches the XRC-137 rules that cached orchestrations
	// reference, and follows their XRC137Updated events.
	FollowRules bool
	rules       map[common.Address]bool
	// Triggers turn logs into session starts.
	Triggers []Trigger
	// Start is the first block to index when the index is empty.
	Start uint64
	// Window is how many recent blocks are kept for reorg detection (default 128).
	Window int
	Range  *RangeSizer
	// Endpoint names the node for the learned log range (kept in Redis).
	Endpoint string
	Log      *slog.Logger
	loaded   bool
}

// Progress reports a step.
type Progress struct {
	From, To uint64
	// Head is the chain's head when the step began.
	Head    uint64
	Changes int
	// Rewound is true when the step rewound a reorg instead of advancing.
	Rewound bool
}

func (f *Follower) defaults(ctx context.Context) {
	if f.Range == nil {
		f.Range = NewRangeSizer(0, 0)
	}
	if !f.loaded {
		f.loaded = true
		if r, err := f.Index.Ranges(ctx); err == nil && f.Endpoint != "" && r[f.Endpoint] > 0 {
			f.Range.Size = min(r[f.Endpoint], f.Range.Max)
		}
		f.loadDiscovered(ctx)
		f.loadRules(ctx)
	}
	if f.Window <= 0 {
		f.Window = 128
	}
	if f.Log == nil {
		f.Log = slog.Default()
	}
}

// Step indexes the next range of blocks. It returns the progress; To < From
// means the index is at the head.
func (f *Follower) Step(ctx context.Context) (p Progress, err error) {
	f.defaults(ctx)
	committed := false
	defer func() {
		if !committed {
			// Registries and rules seen in a range that was not committed.
			f.loadDiscovered(ctx)
			f.loadRules(ctx)
		}
	}()
	tip, err := f.Chain.BlockNumber(ctx)
	if err != nil {
		return Progress{}, fmt.Errorf("block number: %w", err)
	}
	head, indexed, err := f.Index.Head(ctx)
	if err != nil {
		return Progress{}, err
	}
	from := f.Start
	if indexed {
		from = head.Number + 1
	}
	p = Progress{From: from, Head: tip}
	if from > tip {
		p.To = from - 1
		return p, nil
	}
	to := min(tip, from+f.Range.Size-1)
	// The range must continue the indexed chain.
	first, err := f.header(ctx, from)
	if err != nil {
		return p, err
	}
	if indexed && first.ParentHash != head.Hash {
		return f.rewind(ctx, head, p)
	}
	logs, err := f.logs(ctx, from, to)
	before := f.Range.Size
	defer func() {
		if f.Endpoint != "" && f.Range.Size != before {
			f.Index.SaveRange(context.WithoutCancel(ctx), f.Endpoint, f.Range.Size)
		}
	}()
	if err != nil {
		if f.Range.Failure(err) {
			f.Log.Info("log range too large for the provider; shrinking", "blocks", f.Range.Size)
			return p, nil
		}
		return p, fmt.Errorf("logs %d-%d: %w", from, to, err)
	}
	f.Range.Success()
	last, err := f.header(ctx, to)
	if err != nil {
		return p, err
	}
	// Every block that holds a log, and the range's ends, go into the window;
	// each log must come from the canonical block at its height.
	blocks := map[uint64]joinstore.IndexBlock{
		from: {Number: from, Hash: first.Hash(), Parent: first.ParentHash},
		to:   {Number: to, Hash: last.Hash(), Parent: last.ParentHash},
	}
	// Near the tip every block goes into the window, so a shallow reorg
	// finds its common ancestor.
	if tip-to < uint64(f.Window) {
		for n := max(from+1, to+1-min(to+1, uint64(f.Window))); n < to; n++ {
			h, err := f.header(ctx, n)
			if err != nil {
				return p, err
			}
			blocks[n] = joinstore.IndexBlock{Number: n, Hash: h.Hash(), Parent: h.ParentHash}
		}
	}
	var changes []joinstore.Change
	var reads []pendingRead
	for _, l := range logs {
		if l.Removed {
			continue
		}
		b, ok := blocks[l.BlockNumber]
		if !ok {
			h, err := f.header(ctx, l.BlockNumber)
			if err != nil {
				return p, err
			}
			b = joinstore.IndexBlock{Number: l.BlockNumber, Hash: h.Hash(), Parent: h.ParentHash}
			blocks[l.BlockNumber] = b
		}
		if b.Hash != l.BlockHash {
			// The node answered from two chains: a reorg is under way.
			f.Log.Info("log from a non-canonical block; retrying", "block", l.BlockNumber)
			return p, nil
		}
		starts, err := f.starts(l)
		if err != nil {
			return p, err
		}
		changes = append(changes, starts...)
		if f.Discover && len(l.Topics) > 0 && l.Topics[0] == TopicXRC729Deployed {
			changes = append(changes, joinstore.Change{Block: l.BlockNumber, Key: "registry:" + strings.ToLower(l.Address.Hex()),
				Fields: map[string]string{"address": l.Address.Hex(), "block": strconv.FormatUint(l.BlockNumber, 10), "tx": l.TxHash.Hex()}})
			continue
		}
		if rc, ok, err := f.ruleLog(ctx, l); err != nil {
			return p, err
		} else if ok {
			changes = append(changes, rc)
			continue
		}
		if !f.followed(l.Address) {
			continue
		}
		if o, ok, err := DecodeOwnership(l); err != nil {
			return p, err
		} else if ok {
			changes = append(changes, o.Entry())
			continue
		}
		c, ok, err := Decode(l)
		if err != nil {
			return p, err
		}
		if ok {
			// Placeholder; filled by the concurrent reads below, in log order.
			changes = append(changes, joinstore.Change{})
			reads = append(reads, pendingRead{at: len(changes) - 1, c: c})
		}
	}
	if err := f.readAll(ctx, reads, changes); err != nil {
		return p, err
	}
	fresh, err := f.newRules(ctx, changes, blocks[to])
	if err != nil {
		return p, err
	}
	changes = append(changes, fresh...)
	list := make([]joinstore.IndexBlock, 0, len(blocks))
	for _, b := range blocks {
		list = append(list, b)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Number < list[j].Number })
	pruned, err := f.pruned(ctx, to)
	if err != nil {
		return p, err
	}
	if err := f.Index.Commit(ctx, head.Hash, !indexed, list, pruned, changes); err != nil {
		return p, err
	}
	committed = true
	p.To, p.Changes = to, len(changes)
	return p, nil
}

func (f *Follower) header(ctx context.Context, n uint64) (*types.Header, error) {
	h, err := f.Chain.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return nil, fmt.Errorf("header %d: %w", n, err)
	}
	return h, nil
}

// pruned lists window blocks that fall out of the window once to is the head.
func (f *Follower) pruned(ctx context.Context, to uint64) ([]uint64, error) {
	window, err := f.Index.Window(ctx)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, b := range window {
		if b.Number+uint64(f.Window) <= to {
			out = append(out, b.Number)
		}
	}
	return out, nil
}

// rewind finds the newest window block the chain still has and undoes
// everything above it.
func (f *Follower) rewind(ctx context.Context, head joinstore.IndexBlock, p Progress) (Progress, error) {
	blocks, err := f.Index.Window(ctx)
	if err != nil {
		return p, err
	}
	w := Window{Size: f.Window}
	for _, b := range blocks {
		w.Blocks = append(w.Blocks, Block{Number: b.Number, Hash: b.Hash, Parent: b.Parent})
	}
	anc, err := w.CommonAncestor(func(n uint64) (common.Hash, bool) {
		h, err := f.header(ctx, n)
		if err != nil {
			return common.Hash{}, false
		}
		return h.Hash(), true
	})
	if err != nil {
		return p, err
	}
	undone, kept, err := f.Index.Rewind(ctx, head.Hash, joinstore.IndexBlock{Number: anc.Number, Hash: anc.Hash, Parent: anc.Parent})
	if err != nil {
		return p, err
	}
	f.Log.Warn("reorg: rewound the index", "from", head.Number, "to", anc.Number, "changes_undone", undone)
	f.loadDiscovered(ctx)
	f.loadRules(ctx)
	if kept > 0 {
		f.Log.Error("reorg below the confirmation depth: sessions were already started from rewound blocks", "sessions", kept)
	}
	p.Rewound, p.To = true, anc.Number
	return p, nil
}

// pendingRead is a registry change whose text still has to be read.
type pendingRead struct {
	at int // index in the changes
	c  Change
}

// readParallel bounds the concurrent eth_calls of one range.
const readParallel = 8

// readAll turns registry logs into cache changes with up to readParallel
// reads at a time, keeping the changes in log order.
func (f *Follower) readAll(ctx context.Context, reads []pendingRead, changes []joinstore.Change) error {
	sem := make(chan struct{}, readParallel)
	errs := make(chan error, len(reads))
	for _, r := range reads {
		sem <- struct{}{}
		go func(r pendingRead) {
			defer func() { <-sem }()
			ch, err := f.change(ctx, r.c)
			changes[r.at] = ch
			errs <- err
		}(r)
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// logs fetches the registry and trigger logs of a range: one query for the
// registries and one per trigger contract.
func (f *Follower) logs(ctx context.Context, from, to uint64) ([]types.Log, error) {
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
			if !l.Removed && !f.followed(l.Address) {
				f.discovered[l.Address] = true // committed with the range below
			}
		}
		out = append(out, logs...)
	}
	if regs := f.registries(); len(regs) > 0 {
		logs, err := q(regs, []common.Hash{TopicOSTCUpdated, TopicOSTCDeletedIndexed, TopicOwnershipTransferred})
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
	}
	if len(f.rules) > 0 {
		addrs := make([]common.Address, 0, len(f.rules))
		for a := range f.rules {
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

func (f *Follower) followed(a common.Address) bool {
	for _, r := range f.Registries {
		if r == a {
			return true
		}
	}
	return f.discovered[a]
}

// registries are the configured and the discovered registries.
func (f *Follower) registries() []common.Address {
	out := append([]common.Address(nil), f.Registries...)
	for a := range f.discovered {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Cmp(out[j]) < 0 })
	return out
}

// loadDiscovered reads the discovered registries back from the index (at
// start, and after a rewind undid some).
func (f *Follower) loadDiscovered(ctx context.Context) {
	f.discovered = map[common.Address]bool{}
	if !f.Discover {
		return
	}
	keys, err := f.Index.Keys(ctx, "registry:")
	if err != nil {
		f.Log.Warn("reading discovered registries", "err", err)
		return
	}
	for _, k := range keys {
		f.discovered[common.HexToAddress(strings.TrimPrefix(k, "registry:"))] = true
	}
}

// starts records the session starts a log asks for; they run once their
// block is confirmed.
func (f *Follower) starts(l types.Log) ([]joinstore.Change, error) {
	var out []joinstore.Change
	for _, t := range f.Triggers {
		s, ok, err := t.Match(f.ChainID, l)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		fields := map[string]string{
			"status": "pending", "trigger": t.Name, "block": strconv.FormatUint(s.Block, 10),
			"blockHash": l.BlockHash.Hex(), "tx": l.TxHash.Hex(), "logIndex": strconv.FormatUint(uint64(l.Index), 10),
			"owner": strings.ToLower(s.Owner.Hex()), "registry": t.Registry.Hex(), "ostcId": t.OstcID, "start": t.Start,
			"payload": string(s.Payload),
		}
		if t.Pin != (common.Hash{}) {
			fields["pin"] = t.Pin.Hex()
		}
		out = append(out, joinstore.Change{Block: s.Block, Key: joinstore.StartKey(s.Key), Fields: fields, Pending: true})
	}
	return out, nil
}

// change turns a registry log into a cache change, reading the text at the
// log's block and verifying its hash.
func (f *Follower) change(ctx context.Context, c Change) (joinstore.Change, error) {
	cc := joinstore.Change{Block: c.Block, Key: joinstore.OSTCKey(c.Registry, c.ID)}
	if c.Deleted {
		cc.Delete = true
		return cc, nil
	}
	reg := chain.NewRegistry(c.Registry, f.Chain)
	meta, text, err := reg.SnapshotAt(ctx, c.ID, c.BlockHash)
	if err != nil {
		if errors.Is(err, chain.ErrNotFound) {
			// Deleted again later in the same block: nothing to cache.
			cc.Delete = true
			return cc, nil
		}
		return cc, fmt.Errorf("read %q from %s at block %d: %w", c.ID, c.Registry.Hex(), c.Block, err)
	}
	got := registry.Hash(text)
	cc.Fields = map[string]string{
		"registry": c.Registry.Hex(), "id": c.ID, "block": strconv.FormatUint(c.Block, 10),
		"tx": c.TxHash.Hex(), "version": strconv.FormatUint(c.Version, 10), "hash": c.Hash.Hex(),
	}
	if got != c.Hash || meta.Hash != c.Hash {
		// Never served: no json is stored, the mismatch is recorded.
		cc.Fields["mismatch"] = fmt.Sprintf("event %s, getOSTCMeta %s, keccak256(getOSTC) %s", c.Hash.Hex(), meta.Hash.Hex(), got.Hex())
		rec, _ := json.Marshal(map[string]any{"registry": c.Registry.Hex(), "id": c.ID, "block": c.Block, "event": c.Hash.Hex(), "meta": meta.Hash.Hex(), "text": got.Hex()})
		f.Index.RecordMismatch(ctx, string(rec))
		f.Log.Error("orchestration hash mismatch: not cached", "registry", c.Registry.Hex(), "id", c.ID, "block", c.Block, "event", c.Hash.Hex(), "text", got.Hex())
		return cc, nil
	}
	cc.Fields["json"] = string(text)
	if _, err := registry.Parse(text); err != nil {
		cc.Fields["valid"] = "0"
		cc.Fields["problems"] = err.Error()
	} else {
		cc.Fields["valid"] = "1"
	}
	return cc, nil
}
