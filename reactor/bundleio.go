package reactor

import (
	"context"
	"errors"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// The driver's side of a step's log bundle: the machine builds it
// (bundleFor, bundle.go), sessionIO prepares it before the commit and
// settles its grants after.

// prepareBundle prepares the commit's bundle: nil and no error when it
// is refused for good (a seal that failed closed, a bundle over its cap),
// which is logged without the bundle; an error when the store did not
// answer (the commit is then not made, and is tried again as a failed
// commit is).
func (s *sessionIO) prepareBundle(ctx context.Context, w *bundleWrite, token int64) (*evidence.Prepared, error) {
	b := w.Bundle
	prep, err := s.bundles.PrepareCommit(ctx, &b, w.Policy, token, s.clock())
	switch {
	case errors.Is(err, evidence.ErrUnavailable):
		return nil, err
	case err != nil:
		s.log.Warn("log bundle refused; the step is committed without it", "session", s.root.String(), "pid", b.Pid, "step", b.Step, "err", err)
		return nil, nil
	case len(prep.Stored.Unwrapped) > 0:
		s.log.Warn("log bundle: grantees without a registered read key got no grant", "session", s.root.String(), "pid", b.Pid, "grantees", prep.Stored.Unwrapped)
	}
	return prep, nil
}

// bundleSettled removes the grants of a prepared bundle that its commit
// certainly did not keep: the commit answered that it applied without it
// (the bundle was there already), or that it was fenced off. A commit
// whose answer was lost may have applied with its bundle: its grants stay
// (they expire with their term if not).
func (s *sessionIO) bundleSettled(ctx context.Context, prep *evidence.Prepared, res joinstore.CommitResult, err error) {
	if err == nil && res.BundleErr != nil {
		s.log.Warn("log bundle: its grants were not written with the commit", "session", s.root.String(), "key", prep.Key, "err", res.BundleErr)
	}
	if (err == nil && res.Bundle) || (err != nil && !errors.Is(err, joinstore.ErrLeaseLost)) {
		return
	}
	if ferr := s.bundles.Forget(context.WithoutCancel(ctx), prep, s.clock()); ferr != nil {
		s.log.Warn("log bundle: grants of a bundle not stored are left to expire", "session", s.root.String(), "key", prep.Key, "err", ferr)
	}
}
