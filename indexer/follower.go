package indexer

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
)

// Follower follows XRC-729 registries on one chain into the verified cache.
// Each Step reads one range of blocks above the checkpoint, verifies that it
// continues the indexed chain (rewinding to the common ancestor after a
// reorg), turns the registry logs into cache changes — fetching each
// orchestration at the log's block and checking its keccak256 against the
// event and getOSTCMeta, and recording each OwnershipTransferred as the
// registry's owner entry — and commits the range atomically (a range with
// more than CommitLogs logs in parts, one commit each). The reads of
// a range go to the node as JSON-RPC batches (the metas of a block in one
// deployless call where the node takes it), a text already verified under
// the same hash is not read again, and during a backfill the next part or
// range is read while the current one commits.
type Follower struct {
	Chain   chain.Backend
	ChainID uint64
	Index   *indexstore.Index
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
	// CommitLogs bounds the logs (about as many cache changes) one commit
	// covers (default DefaultCommitLogs): a range with more is committed in
	// parts, cut at block boundaries (a block with more logs is a part of
	// its own), so that no commit holds Redis for long and the next part is
	// verified while one commits.
	CommitLogs int
	// Endpoint names the node for the learned log range (kept in Redis).
	Endpoint string
	Log      *slog.Logger
	loaded   bool
	// batcher sends the range's header and eth_call reads as batches.
	batcher *chain.Batcher
	// docs are verified texts by hash.
	docs *docCache
	// ahead is what follows the last commit (the next range, or the next
	// parts of a range), being read in the background.
	ahead *prefetch
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
	if f.batcher == nil {
		f.batcher = chain.NewBatcher(f.Chain)
	}
	if f.docs == nil {
		f.docs = newDocCache(defaultDocCacheBytes)
	}
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

// Step indexes the next range of blocks, or the next part of a range with
// more than CommitLogs logs (cut at block boundaries; the checkpoint moves
// to the part's last block). It returns the progress; To < From
// means the index is at the head. During a backfill what follows — the
// next part, or the next range — is read and verified in the background
// while this one commits (see prefetch); it is used by the next Step only
// if the chain still holds the blocks it was read from, and it is
// committed only by that Step, so the checkpoint never passes an entry
// that is not verified and cached, and commits stay in block order.
func (f *Follower) Step(ctx context.Context) (p Progress, err error) {
	f.defaults(ctx)
	tip, err := f.Chain.BlockNumber(ctx)
	if err != nil {
		f.dropPrefetch()
		return Progress{}, fmt.Errorf("block number: %w", err)
	}
	head, indexed, err := f.Index.Head(ctx)
	if err != nil {
		f.dropPrefetch()
		return Progress{}, err
	}
	from := f.Start
	if indexed {
		from = head.Number + 1
	}
	p = Progress{From: from, Head: tip}
	if from > tip {
		f.dropPrefetch()
		p.To = from - 1
		return p, nil
	}
	before := f.Range.Size
	defer func() {
		if f.Endpoint != "" && f.Range.Size != before {
			f.Index.SaveRange(context.WithoutCancel(ctx), f.Endpoint, f.Range.Size)
		}
	}()
	r := f.takePrefetch(ctx, from, head, indexed)
	if r == nil {
		// The range must continue the indexed chain.
		var parent *common.Hash
		if indexed {
			parent = &head.Hash
		}
		r, err = f.readRange(ctx, f.scope().clone(), from, min(tip, from+f.Range.Size-1), tip, parent)
		if err != nil {
			return p, err
		}
	}
	if indexed && r.first.Parent != head.Hash {
		return f.rewind(ctx, head, p)
	}
	if r.logsErr != nil {
		if f.Range.Failure(r.logsErr) {
			f.Log.Info("log range too large for the provider; shrinking", "blocks", f.Range.Size)
			return p, nil
		}
		return p, fmt.Errorf("logs %d-%d: %w", r.from, r.to, r.logsErr)
	}
	if !r.continued {
		f.Range.Success()
	}
	if r.nonCanonical {
		return p, nil
	}
	if r.to < tip && f.ahead == nil {
		f.startPrefetch(ctx, r, tip)
	}
	pruned, err := f.pruned(ctx, r.to)
	if err != nil {
		f.dropPrefetch()
		return p, err
	}
	if err := f.Index.Commit(ctx, head.Hash, !indexed, r.list(), pruned, r.changes); err != nil {
		f.dropPrefetch()
		return p, err
	}
	f.logCacheUpdates(r.changes)
	for _, m := range r.mismatches {
		m.report(ctx, f)
	}
	// Registries discovered and rules followed in the range count from now.
	f.discovered, f.rules = r.scope.discovered, r.scope.rules
	p.To, p.Changes = r.to, len(r.changes)
	return p, nil
}

func (f *Follower) commitLogs() int {
	if f.CommitLogs > 0 {
		return f.CommitLogs
	}
	return DefaultCommitLogs
}

// scope is the committed view of what the follower follows.
func (f *Follower) scope() scope {
	return scope{discovered: f.discovered, rules: f.rules}
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
func (f *Follower) rewind(ctx context.Context, head indexstore.Block, p Progress) (Progress, error) {
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
	undone, kept, err := f.Index.Rewind(ctx, head.Hash, indexstore.Block{Number: anc.Number, Hash: anc.Hash, Parent: anc.Parent})
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

// registries are the configured and the discovered registries.
func (f *Follower) registries() []common.Address { return f.registriesIn(f.scope()) }

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

// cacheLogLimit is how many cache updates of one commit are logged one by
// one at INFO; a larger commit (a backfill) logs their counts.
const cacheLogLimit = 20

// logCacheUpdates says at INFO which orchestrations and rules a commit
// cached, updated or removed.
func (f *Follower) logCacheUpdates(changes []indexstore.Change) {
	var ostcs, rules []indexstore.Change
	for _, c := range changes {
		switch {
		case strings.HasPrefix(c.Key, "ostc:"):
			ostcs = append(ostcs, c)
		case strings.HasPrefix(c.Key, "rule:"):
			rules = append(rules, c)
		}
	}
	if len(ostcs)+len(rules) > cacheLogLimit {
		f.Log.Info("cache updated", "orchestrations", len(ostcs), "rules", len(rules), "toBlock", changes[len(changes)-1].Block)
		return
	}
	for _, c := range ostcs {
		f.Log.Info("orchestration cache updated", "entry", strings.TrimPrefix(c.Key, "ostc:"), "block", c.Block,
			"version", c.Fields["version"], "hash", c.Fields["hash"], "removed", c.Delete)
	}
	for _, c := range rules {
		f.Log.Info("rule cache updated", "rule", strings.TrimPrefix(c.Key, "rule:"), "block", c.Block, "hash", c.Fields["hash"], "removed", c.Delete)
	}
}

// SeenAtField is the field of a trigger start's record holding when the
// indexer saw its log (unix ms): the start of its trigger-to-start time.
const SeenAtField = "seenAt"

// starts records the session starts a log asks for; they run once their
// block is confirmed.
func (f *Follower) starts(l types.Log) ([]indexstore.Change, error) {
	var out []indexstore.Change
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
		fields[SeenAtField] = strconv.FormatInt(time.Now().UnixMilli(), 10)
		out = append(out, indexstore.Change{Block: s.Block, Key: indexstore.StartKey(s.Key), Fields: fields, Pending: true})
	}
	return out, nil
}
