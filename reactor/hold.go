package reactor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// DefaultHoldLease is the root lease a Holder takes when Lease is zero.
const DefaultHoldLease = 30 * time.Second

// Holder keeps sessions on a shared Redis away from the replicas, for a
// program that runs them itself (xgr simulate's Runner): a session it holds
// is run by nobody else.
type Holder struct {
	Store *joinstore.Store
	// Name is the holder in the root lease (unique per process).
	Name string
	// Lease is how long the root lease lasts without renewal
	// (DefaultHoldLease when 0); Hold renews it every third of that.
	Lease time.Duration
	// Log receives failed renewals (nil: slog.Default()).
	Log *slog.Logger
}

// Hold makes a session created paused runnable by this holder only: it
// takes the session's root lease (replicas skip a session whose lease
// another holds), resumes it, takes it out of the replicas' root index
// and renews the lease until release is called. A session that finished
// meanwhile needs no renewal.
func (h Holder) Hold(ctx context.Context, root joinstore.Root, now time.Time) (release func(), err error) {
	lease, log := h.Lease, h.Log
	if lease <= 0 {
		lease = DefaultHoldLease
	}
	if log == nil {
		log = slog.Default()
	}
	if _, err := h.Store.AcquireRoot(ctx, root, h.Name, lease); err != nil {
		return nil, fmt.Errorf("hold session %s on the shared Redis: %w", root, err)
	}
	if _, err := h.Store.Pause(ctx, root, now, false); err != nil {
		return nil, fmt.Errorf("resume session %s: %w", root, err)
	}
	if err := h.Store.UnmarkRoot(ctx, root); err != nil {
		return nil, fmt.Errorf("unindex session %s: %w", root, err)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if _, err := h.Store.AcquireRoot(context.WithoutCancel(ctx), root, h.Name, lease); err != nil && !errors.Is(err, joinstore.ErrFinished) {
					log.Warn("renewing a held session's root lease failed", "holder", h.Name, "session", root.String(), "err", err)
				}
			}
		}
	}()
	return func() { close(done); <-stopped }, nil
}
