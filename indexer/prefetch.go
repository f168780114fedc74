package indexer

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// prefetch is the range after the one being committed, read and verified
// in the background so that a backfill overlaps the node's eth_getLogs and
// reads with the Redis commit. It never commits anything itself: the next
// Step takes it, checks that it still fits, and commits it.
type prefetch struct {
	from uint64
	// prev is the hash the range must continue: the last block of the
	// range that was committed before it.
	prev   common.Hash
	cancel context.CancelFunc
	done   chan struct{}
	r      *rangeRead
	err    error
}

// startPrefetch starts reading the range after cur (up to the range size,
// not past tip) with the scope cur leaves behind.
func (f *Follower) startPrefetch(ctx context.Context, cur *rangeRead, tip uint64) {
	f.dropPrefetch()
	from := cur.to + 1
	to := min(tip, from+f.Range.Size-1)
	sc := cur.scope.clone()
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetch{from: from, prev: cur.last.Hash, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.r, p.err = f.readRange(pctx, sc, from, to, tip, &p.prev)
	}()
	f.ahead = p
}

// dropPrefetch abandons the range being read ahead, if any.
func (f *Follower) dropPrefetch() {
	if f.ahead != nil {
		f.ahead.cancel()
		f.ahead = nil
	}
}

// takePrefetch returns the range read ahead when it is the one to index
// now — it starts at from and continues the checkpoint head — and the chain
// still holds the last block it was read up to (read before its logs, so
// nothing it read can come from a chain that has since been replaced).
// Otherwise it returns nil and the caller reads the range itself; read
// errors of the prefetch are left to that fresh read to report.
func (f *Follower) takePrefetch(ctx context.Context, from uint64, head joinstore.IndexBlock, indexed bool) *rangeRead {
	p := f.ahead
	f.ahead = nil
	if p == nil {
		return nil
	}
	defer p.cancel()
	if !indexed || p.from != from || p.prev != head.Hash {
		return nil
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil
	}
	r := p.r
	if p.err != nil || r == nil || r.logsErr != nil || r.nonCanonical || r.first.Parent != head.Hash {
		return nil
	}
	h, err := f.header(ctx, r.to)
	if err != nil || h.Hash() != r.last.Hash {
		return nil
	}
	return r
}
