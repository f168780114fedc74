package chain

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// SnapshotRequest asks for one orchestration's getOSTCMeta, and with Text
// also its getOSTC, in the state after the block with hash Block.
type SnapshotRequest struct {
	Registry common.Address
	ID       string
	Block    common.Hash
	Text     bool
	// HashOnly asks only for the meta's Hash (Version and UpdatedAt may
	// stay zero), which lets the reads of one block go out together as
	// one deployless call.
	HashOnly bool
}

// SnapshotResult answers a SnapshotRequest: Meta (and Text when asked), or
// Err, which wraps ErrNotFound for an id the registry does not hold.
type SnapshotResult struct {
	Meta OSTCMeta
	Text []byte
	Err  error
}

// SnapshotsAt reads many orchestrations at their blocks (EIP-1898) through
// the batcher. When the node takes calls without `to` (Batcher.Deployless),
// the getOSTCMeta reads of one block that ask for the hash only go out
// together as deployless MetaReader calls (up to MetasPerCall each); a read
// such a call does not answer (a revert, a missing id, no registry, a zero
// hash, the node failing the call) is made again on its own, so its result
// or error is exactly that of its own getOSTCMeta. Otherwise each request
// costs one getOSTCMeta. Each request that asks for the text costs one
// getOSTC. All of them are sent as JSON-RPC batches. Results are in request
// order; the error is for the reads as a whole (the node unreachable).
func SnapshotsAt(ctx context.Context, b *Batcher, reqs []SnapshotRequest) ([]SnapshotResult, error) {
	out := make([]SnapshotResult, len(reqs))
	metaRead := make([]bool, len(reqs))
	var refusedWhole bool
	if b.Deployless() {
		refusedWhole = readMetasTogether(ctx, b, reqs, out, metaRead) != nil
	}
	// The metas not read yet and the texts, one call each, each request's
	// meta before its text.
	type slot struct {
		req  int
		text bool
	}
	var calls []CallAt
	var slots []slot
	for i, r := range reqs {
		if !metaRead[i] {
			calls = append(calls, CallAt{To: &r.Registry, Data: xrc729ABI.PackGetOSTCMeta(r.ID), Block: r.Block})
			slots = append(slots, slot{req: i})
		}
		if r.Text {
			calls = append(calls, CallAt{To: &r.Registry, Data: xrc729ABI.PackGetOSTC(r.ID), Block: r.Block})
			slots = append(slots, slot{req: i, text: true})
		}
	}
	if len(calls) == 0 {
		return out, nil
	}
	res, err := b.CallsAt(ctx, calls)
	if err != nil {
		return nil, err
	}
	if refusedWhole {
		// The plain calls went through where the deployless ones did not:
		// the node refuses those.
		b.learnDeployless(false)
	}
	for k, s := range slots {
		r, o := reqs[s.req], &out[s.req]
		if o.Err != nil {
			continue // the meta already failed
		}
		method := "getOSTCMeta"
		if s.text {
			method = "getOSTC"
		}
		if err := snapshotErr(r, method, res[k]); err != nil {
			o.Err = err
			continue
		}
		if s.text {
			text, err := xrc729ABI.UnpackGetOSTC(res[k].Out)
			if err != nil {
				o.Err = fmt.Errorf("getOSTC %q at %s in block %s: unexpected answer (is this an XRC-729 registry?): %w", r.ID, r.Registry.Hex(), r.Block.Hex(), err)
				continue
			}
			o.Text = []byte(text)
			continue
		}
		m, err := decodeMeta(r.ID, res[k].Out)
		if err != nil {
			o.Err = fmt.Errorf("getOSTCMeta %q at %s in block %s: unexpected answer (is this an XRC-729 registry?): %w", r.ID, r.Registry.Hex(), r.Block.Hex(), err)
			continue
		}
		o.Meta = m
	}
	return out, nil
}

// decodeMeta decodes getOSTCMeta's return data.
func decodeMeta(id string, data []byte) (OSTCMeta, error) {
	m, err := xrc729ABI.UnpackGetOSTCMeta(data)
	if err != nil {
		return OSTCMeta{}, err
	}
	return OSTCMeta{ID: id, Hash: m.Hash, Version: u64(m.Version), UpdatedAt: time.Unix(int64(m.UpdatedAt), 0).UTC()}, nil
}

// snapshotErr explains a failed read of a snapshot: a missing id
// (ErrNotFound), another revert, or an empty answer (no contract).
func snapshotErr(r SnapshotRequest, method string, res CallResult) error {
	if res.Err != nil {
		err := readError(r.Registry, method, res.Err)
		if ReasonOf(err) == ReasonNotFound {
			return fmt.Errorf("registry %s: id %q: %w (%w)", r.Registry.Hex(), r.ID, ErrNotFound, err)
		}
		return err
	}
	if len(res.Out) == 0 {
		return fmt.Errorf("%s %q: empty answer in block %s: %w at %s on this chain, or it is not an XRC-729 registry (wrong address or --rpc?)",
			method, r.ID, r.Block.Hex(), ErrNoContract, r.Registry.Hex())
	}
	return nil
}
