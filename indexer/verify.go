package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// pendingRead is a registry change whose text still has to be read.
type pendingRead struct {
	at int // index in the changes
	c  Change
}

// readKey names the state one read sees: an id of a registry after a block.
type readKey struct {
	registry common.Address
	id       string
	block    common.Hash
}

// superseded reports, for each read, whether a later log of the same block
// changes the same id again. Every read sees the state after its block, so
// only the block's last change of an id can be checked against it; the
// earlier ones are dropped (the block's undo record still restores what
// was there before the block).
func superseded(reads []pendingRead) []bool {
	last := map[readKey]int{}
	for i, r := range reads {
		last[readKey{r.c.Registry, r.c.ID, r.c.BlockHash}] = i
	}
	out := make([]bool, len(reads))
	for i, r := range reads {
		out[i] = last[readKey{r.c.Registry, r.c.ID, r.c.BlockHash}] != i
	}
	return out
}

// verifyAll turns registry logs into cache changes, in log order, writing
// each into changes[r.at]. The getOSTCMeta of every entry and the getOSTC
// of every text not yet known by its hash go to the node as JSON-RPC
// batches (chain.SnapshotsAt: the metas of one block in one deployless
// call where the node takes calls without `to`); a text shared by many
// entries is read once.
// An entry stays a placeholder (empty Key) when a later log of its block
// supersedes it.
func (f *Follower) verifyAll(ctx context.Context, reads []pendingRead, changes []indexstore.Change) ([]mismatch, error) {
	skip := superseded(reads)
	var live []pendingRead
	for i, r := range reads {
		switch {
		case skip[i]:
		case r.c.Deleted:
			changes[r.at] = indexstore.Change{Block: r.c.Block, Key: indexstore.OSTCKey(r.c.Registry, r.c.ID), Delete: true}
		default:
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return nil, nil
	}
	// Every entry's meta, and the text of the first entry of each hash the
	// cache does not know.
	reqs := make([]chain.SnapshotRequest, len(live))
	asked := map[common.Hash]bool{}
	for i, r := range live {
		// The verification compares the meta's hash only.
		reqs[i] = chain.SnapshotRequest{Registry: r.c.Registry, ID: r.c.ID, Block: r.c.BlockHash, HashOnly: true}
		if _, ok := f.docs.get(r.c.Hash); !ok && !asked[r.c.Hash] {
			reqs[i].Text, asked[r.c.Hash] = true, true
		}
	}
	deployless := f.batcher.Deployless()
	res, err := chain.SnapshotsAt(ctx, f.batcher, reqs)
	if err != nil {
		return nil, fmt.Errorf("verify %d orchestration writes: %w", len(live), err)
	}
	if deployless && !f.batcher.Deployless() {
		f.Log.Info("the node refuses eth_call without to: reading each getOSTCMeta on its own from now on")
	}
	for i := range live {
		if reqs[i].Text && res[i].Err == nil {
			f.docs.put(live[i].c.Hash, res[i].Text)
		}
	}
	// An entry whose hash has no verified text yet, or whose meta disagrees
	// with its event, is checked against its own getOSTC.
	docs := make([]*doc, len(live))
	var again []int
	for i, r := range live {
		if res[i].Err != nil || reqs[i].Text {
			continue
		}
		docs[i], _ = f.docs.get(r.c.Hash)
		if docs[i] == nil || res[i].Meta.Hash != r.c.Hash {
			docs[i] = nil
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		more := make([]chain.SnapshotRequest, len(again))
		for k, i := range again {
			more[k] = reqs[i]
			more[k].Text = true
		}
		got, err := chain.SnapshotsAt(ctx, f.batcher, more)
		if err != nil {
			return nil, fmt.Errorf("verify %d orchestration writes: %w", len(again), err)
		}
		for k, i := range again {
			reqs[i].Text, res[i] = true, got[k]
		}
	}
	var found []mismatch
	for i, r := range live {
		ch, m, err := f.change(r.c, res[i].Meta, res[i].Text, docs[i], res[i].Err)
		if err != nil {
			return nil, err
		}
		changes[r.at] = ch
		if m != nil {
			found = append(found, *m)
		}
	}
	return found, nil
}

// mismatch is an orchestration write whose text did not hash to the
// event's hash and getOSTCMeta's: never cached, recorded (Index.Mismatches)
// and logged when the part it belongs to commits, so that a part read
// ahead and then dropped (a reorg, a stop) records nothing.
type mismatch struct {
	c          Change
	meta, text common.Hash
}

// report records and logs m.
func (m mismatch) report(ctx context.Context, f *Follower) {
	rec, _ := json.Marshal(map[string]any{"registry": m.c.Registry.Hex(), "id": m.c.ID, "block": m.c.Block,
		"event": m.c.Hash.Hex(), "meta": m.meta.Hex(), "text": m.text.Hex()})
	if err := f.Index.RecordMismatch(ctx, string(rec)); err != nil {
		f.Log.Warn("recording a hash mismatch failed", "err", err)
	}
	f.Log.Error("orchestration hash mismatch: not cached", "registry", m.c.Registry.Hex(), "id", m.c.ID, "block", m.c.Block,
		"event", m.c.Hash.Hex(), "meta", m.meta.Hex(), "text", m.text.Hex())
}

// change turns a registry write into a cache change from what was read at
// the log's block: the text is cached only when its keccak256 equals both
// the event's hash and getOSTCMeta's (else the mismatch is returned too).
// d, when not nil, is the cached document of the event's hash, standing in
// for a getOSTC that was not read again (its keccak256 is the event's hash
// by construction).
func (f *Follower) change(c Change, meta chain.OSTCMeta, text []byte, d *doc, readErr error) (indexstore.Change, *mismatch, error) {
	cc := indexstore.Change{Block: c.Block, Key: indexstore.OSTCKey(c.Registry, c.ID)}
	if readErr != nil {
		if errors.Is(readErr, chain.ErrNotFound) {
			// Deleted again later in the same block: nothing to cache.
			cc.Delete = true
			return cc, nil, nil
		}
		return cc, nil, fmt.Errorf("read %q from %s at block %d: %w", c.ID, c.Registry.Hex(), c.Block, readErr)
	}
	got := c.Hash
	if d == nil {
		got = registry.Hash(text)
	}
	reg := c.Registry.Hex()
	cc.Fields = map[string]string{
		"registry": reg, "id": c.ID, "block": strconv.FormatUint(c.Block, 10),
		"tx": c.TxHash.Hex(), "version": strconv.FormatUint(c.Version, 10), "hash": c.Hash.Hex(),
	}
	if got != c.Hash || meta.Hash != c.Hash {
		// Never served: no json is stored, the mismatch is recorded.
		cc.Fields["mismatch"] = fmt.Sprintf("event %s, getOSTCMeta %s, keccak256(getOSTC) %s", c.Hash.Hex(), meta.Hash.Hex(), got.Hex())
		return cc, &mismatch{c: c, meta: meta.Hash, text: got}, nil
	}
	if d == nil {
		d, _ = f.docs.put(got, text)
	}
	cc.Fields["json"] = d.text
	if d.valid {
		cc.Fields["valid"] = "1"
	} else {
		cc.Fields["valid"] = "0"
		cc.Fields["problems"] = d.problems
	}
	return cc, nil, nil
}
