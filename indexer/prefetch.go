package indexer

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexstore"
)

// aheadParts bounds how many verified parts a prefetch holds before the
// Steps take them.
const aheadParts = 4

// prefetch is what follows the range (or part) being committed, read and
// verified in the background so that a backfill overlaps the node's
// eth_getLogs and reads with the Redis commits: the next range, or the
// remaining parts of the current range, verified one after the other
// without waiting for the commits. It never commits anything itself: each
// Step takes the next part, checks that it still fits, and commits it.
type prefetch struct {
	// from is where the next part must start and prev the hash it must
	// continue: the last block committed before it.
	from   uint64
	prev   common.Hash
	cancel context.CancelFunc
	// done is closed when the reading goroutine has returned.
	done chan struct{}
	// parts delivers the parts in block order; it is closed after the last
	// part or a failure.
	parts chan readAhead
	// next is a part received from parts and not yet taken.
	next *readAhead
}

// readAhead is one part read ahead, or why it could not be read.
type readAhead struct {
	r   *rangeRead
	err error
}

// startPrefetch starts reading what follows cur in the background: the
// remaining parts of cur's range when cur is one part of it (their logs
// are read: only decoding and verification are left), otherwise the next
// range (up to the range size, not past tip, with the scope cur leaves
// behind) and its parts.
func (f *Follower) startPrefetch(ctx context.Context, cur *rangeRead, tip uint64) {
	f.dropPrefetch()
	from := cur.to + 1
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetch{from: from, prev: cur.last.Hash, cancel: cancel, done: make(chan struct{}), parts: make(chan readAhead, aheadParts)}
	rest, prev := cur.rest, cur.last.Hash
	to := min(tip, from+f.Range.Size-1)
	sc := cur.scope.clone()
	go func() {
		defer close(p.done)
		defer close(p.parts)
		var r *rangeRead
		var err error
		if rest != nil {
			r, err = f.verifySpan(pctx, rest)
		} else {
			r, err = f.readRange(pctx, sc, from, to, tip, &prev)
		}
		for {
			var next *span
			if err == nil {
				next, r.rest = r.rest, nil
				r.more = next != nil
			}
			select {
			case p.parts <- readAhead{r: r, err: err}:
			case <-pctx.Done():
				return
			}
			if next == nil {
				return
			}
			r, err = f.verifySpan(pctx, next)
		}
	}()
	f.ahead = p
}

// Close stops what the follower reads ahead, if anything, and returns when
// it has stopped: a caller that stops calling Step without cancelling the
// context it passed calls it, so that no read-ahead waits for a Step that
// never comes. Step may be called again afterwards (it reads afresh).
func (f *Follower) Close() {
	if p := f.ahead; p != nil {
		f.dropPrefetch()
		<-p.done
	}
}

// dropPrefetch abandons what is being read ahead, if anything.
func (f *Follower) dropPrefetch() {
	if f.ahead != nil {
		f.ahead.cancel()
		f.ahead = nil
	}
}

// wait returns the next part read ahead without taking it, waiting for it
// if need be; ok is false when the prefetch ended without one or ctx ended.
func (p *prefetch) wait(ctx context.Context) (readAhead, bool) {
	if p.next == nil {
		select {
		case a, ok := <-p.parts:
			if !ok {
				return readAhead{}, false
			}
			p.next = &a
		case <-ctx.Done():
			return readAhead{}, false
		}
	}
	return *p.next, true
}

// takePrefetch returns the part read ahead when it is the one to index now
// — it starts at from and continues the checkpoint head — and the chain
// still holds the last block its logs were read up to (read before them,
// so nothing it read can come from a chain that has since been replaced).
// The prefetch is kept when it goes on with the next part of the same
// range, and let go otherwise. When the part does not fit it returns nil,
// the prefetch is dropped and the caller reads the range itself; read
// errors of the prefetch are left to that fresh read to report.
func (f *Follower) takePrefetch(ctx context.Context, from uint64, head indexstore.Block, indexed bool) *rangeRead {
	p := f.ahead
	if p == nil {
		return nil
	}
	if !indexed || p.from != from || p.prev != head.Hash {
		f.dropPrefetch()
		return nil
	}
	a, ok := p.wait(ctx)
	r := a.r
	if !ok || a.err != nil || r == nil || r.logsErr != nil || r.nonCanonical || r.first.Parent != head.Hash {
		f.dropPrefetch()
		return nil
	}
	h, err := f.header(ctx, r.anchor.Number)
	if err != nil || h.Hash() != r.anchor.Hash {
		f.dropPrefetch()
		return nil
	}
	p.next = nil
	if r.more {
		p.from, p.prev = r.to+1, r.last.Hash
	} else {
		f.dropPrefetch()
	}
	return r
}
