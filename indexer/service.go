package indexer

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/indexstore"
)

// Service runs a follower and a starter until the context ends: it steps
// the follower as fast as there are blocks (polling every Poll at the head),
// starts confirmed triggers after each step, logs backfill progress (every
// 5 s: block, head, blocks and cache entries per second; see
// backfillReport), and stops with an error on a reorg deeper than the
// window.
type Service struct {
	Follower *Follower
	Starter  *Starter
	Poll     time.Duration
	Log      *slog.Logger
	// OnProgress sees every step (optional; for metrics).
	OnProgress func(Progress)
	// Heads, when set (a newHeads subscription over websocket), wakes the
	// follower at once on a new block instead of at the next poll. It is
	// only a hint: logs are still read by range and checked against the
	// window, and polling goes on.
	Heads <-chan *types.Header
	// Ping, when set, asks whether Redis answers. While the service backs
	// off after an error it pings at every Poll: once a Redis that did
	// not answer answers again it logs so and retries at once, with the
	// backoff reset (a Redis restart then stalls triggers for a poll, not
	// for the rest of a 30 s backoff).
	Ping func(ctx context.Context) error
	// Holder, when set, names this replica in the indexing lease
	// (indexstore.AcquireLease): the service follows the chain and starts
	// triggered sessions only while it holds the lease, so that of several
	// replicas with the same config one indexes at a time and the others
	// stay quiet (a DEBUG line when the holder changes) until it stops.
	// Its commits are fenced by the lease. Empty: no lease (one replica).
	Holder string
	// LeaseTTL is how long the lease lasts without renewal (default 10 s,
	// at least 5 polls); a stopped holder gives it back at once, a crashed
	// one is replaced after it.
	LeaseTTL time.Duration

	held     atomic.Bool
	recorded bool             // the finality rule is recorded for this holding (Run's goroutine only)
	cur      indexstore.Lease // the holding (Run's goroutine only)
	holder   string           // the other holder last seen (for the DEBUG line)
}

// Leading reports whether this service holds the indexing lease (always
// true without Holder once running).
func (s *Service) Leading() bool { return s.Holder == "" || s.held.Load() }

// Run follows the chain until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.Poll <= 0 {
		s.Poll = time.Second
	}
	backoff := s.Poll
	var report backfillReport
	var fin indexstore.FinalityRecord
	if s.Starter != nil { // before its first step (which may fall back to confirmations)
		fin = indexstore.FinalityRecord{Mode: s.Starter.Finality, Confirmations: s.Starter.Confirmations, Replica: s.Holder}
	}
	defer s.Follower.Close()
	defer s.release()
	for {
		if s.Holder != "" {
			lead, err := s.lead(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				s.Log.Warn("indexing lease: Redis did not answer; retrying", "err", err, "in", backoff)
				ok, back := s.backOff(ctx, backoff)
				if !ok {
					return nil
				}
				if back {
					backoff = s.Poll
				} else {
					backoff = min(2*backoff, 30*time.Second)
				}
				continue
			case ctx.Err() != nil:
				return nil
			case !lead:
				if !s.wait(ctx) {
					return nil
				}
				continue
			}
		}
		if !s.recorded && fin.Mode != "" {
			s.recordFinality(ctx, fin)
		}
		p, err := s.Follower.Step(ctx)
		var deep *ErrReorgTooDeep
		switch {
		case errors.Is(err, indexstore.ErrNotHolder):
			// The lease expired during the step and another replica took
			// it: nothing was written; the next round follows it.
			s.Log.Debug("indexing lease lost during a commit", "err", err)
			s.lost("")
			continue
		case errors.As(err, &deep):
			s.Log.Error("stopping the indexer", "err", err)
			return err
		case err != nil && ctx.Err() == nil:
			s.Log.Warn("indexing failed; retrying", "err", err, "in", backoff)
			ok, back := s.backOff(ctx, backoff)
			if !ok {
				return nil
			}
			if back {
				backoff = s.Poll
			} else {
				backoff = min(2*backoff, 30*time.Second)
			}
			continue
		case ctx.Err() != nil:
			return nil
		}
		backoff = s.Poll
		if s.OnProgress != nil {
			s.OnProgress(p)
		}
		atHead := p.To >= p.Head && !p.Rewound
		if attrs, ok := report.observe(p, time.Now(), s.Follower.Range.Size); ok {
			s.Log.Info("backfill", attrs...)
		}
		if s.Starter != nil {
			if _, err := s.Starter.Step(ctx); err != nil && ctx.Err() == nil {
				s.Log.Warn("starting triggered sessions failed", "err", err)
			}
		}
		if atHead && !s.wait(ctx) {
			return nil
		}
	}
}

// recordFinality records the trigger finality rule this replica indexes
// with (indexstore.SaveFinality) for tools without the config; a failure
// is logged and retried at the next round.
func (s *Service) recordFinality(ctx context.Context, fin indexstore.FinalityRecord) {
	fin.At = time.Now()
	if err := s.Follower.Index.SaveFinality(ctx, fin); err != nil {
		if ctx.Err() == nil {
			s.Log.Warn("recording the trigger finality rule failed; retrying", "err", err)
		}
		return
	}
	s.recorded = true
}

// leaseTTL is the lease duration in use.
func (s *Service) leaseTTL() time.Duration {
	return max(cmp.Or(s.LeaseTTL, 10*time.Second), 5*s.Poll)
}

// lead takes or renews the indexing lease and fences the index's commits
// by it; it reports whether this replica holds it.
func (s *Service) lead(ctx context.Context) (bool, error) {
	l, err := s.Follower.Index.AcquireLease(ctx, s.Holder, s.leaseTTL())
	if err != nil {
		return false, err
	}
	if !l.Held {
		s.lost(l.Holder)
		return false, nil
	}
	s.Follower.Index.Fence(l)
	s.cur = l
	if !s.held.Swap(true) {
		s.Log.Info("indexing: this replica holds the indexing lease and follows the chain", "replica", s.Holder, "token", l.Token)
		s.holder = ""
	}
	return true, nil
}

// lost records that another replica (holder, "" when unknown) indexes.
func (s *Service) lost(holder string) {
	s.Follower.Index.Fence(indexstore.Lease{})
	s.recorded = false // the next holder records its own
	if s.held.Swap(false) {
		s.Follower.dropPrefetch()
		s.Log.Info("indexing: another replica took the indexing lease; this one stays idle", "replica", s.Holder, "holder", holder)
	}
	if holder != "" && holder != s.holder {
		s.holder = holder
		s.Log.Debug("indexing: another replica holds the indexing lease", "holder", holder)
	}
}

// release gives the lease back when this replica holds it, so that
// another one takes over at once.
func (s *Service) release() {
	if s.Holder == "" || !s.held.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.Follower.Index.ReleaseLease(ctx, s.cur); err == nil {
		s.held.Store(false)
		s.Follower.Index.Fence(indexstore.Lease{})
		s.Log.Info("indexing: gave the indexing lease back", "replica", s.Holder)
	}
}

// backOff sleeps d, or less when Ping says Redis answers again after not
// answering during the sleep (back: retry now with the backoff reset). ok
// is false when ctx ended.
func (s *Service) backOff(ctx context.Context, d time.Duration) (ok, back bool) {
	if s.Ping == nil {
		return sleep(ctx, d), false
	}
	end := time.Now().Add(d)
	down := false
	for {
		left := time.Until(end)
		if left <= 0 {
			return true, false
		}
		if !sleep(ctx, min(s.Poll, left)) {
			return false, false
		}
		pctx, cancel := context.WithTimeout(ctx, s.Poll)
		err := s.Ping(pctx)
		cancel()
		switch {
		case err != nil:
			down = true
		case down:
			s.Log.Info("Redis reachable again; indexing resumes")
			return true, true
		}
	}
}

// wait sleeps until the next poll or a new head, whichever comes first.
func (s *Service) wait(ctx context.Context) bool {
	t := time.NewTimer(s.Poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-s.Heads:
	}
	return true
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
