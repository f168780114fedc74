package indexer

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
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
}

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
	defer s.Follower.Close()
	for {
		p, err := s.Follower.Step(ctx)
		var deep *ErrReorgTooDeep
		switch {
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
