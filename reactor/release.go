package reactor

// The release reducer decides when a lease or a lock is given up: at most
// once, and only on an observed outcome — never on dispatch. It is the
// pure model every lease and lock in xgr is driven by (seed 004's
// release-after-observation discipline).

// LeaseEvent is something observed about a held lease or lock.
type LeaseEvent uint8

// Lease events.
const (
	// Dispatched: the work was handed to an executor. Never a release.
	Dispatched LeaseEvent = iota
	// Renewed: the lease was extended.
	Renewed
	// CommitAcked: the committing script accepted the result; it cleared
	// the lease in the same atomic step.
	CommitAcked
	// CommitRejected: the committing script refused the token (lease lost);
	// someone else holds it now.
	CommitRejected
	// ExecutionFailed: the work ended without a result to commit.
	ExecutionFailed
	// Expired: the lease ran out before any outcome; the store recovers it.
	Expired
)

// ReleaseAction is what the caller must do after an event.
type ReleaseAction uint8

// Release actions.
const (
	// Keep holding the lease.
	Keep ReleaseAction = iota
	// Release now: call the store's release transition with the token.
	Release
	// Settled: the lease is gone already (committed, lost or expired);
	// nothing to call.
	Settled
)

func (a ReleaseAction) String() string { return [...]string{"keep", "release", "settled"}[a] }

// LeaseState accumulates one lease's history.
type LeaseState struct {
	Done bool
}

// ReduceLease folds one event into the lease's state. Exactly one event of a
// lease's life returns Release or Settled; every event after it returns Keep.
func ReduceLease(s LeaseState, e LeaseEvent) (LeaseState, ReleaseAction) {
	if s.Done {
		return s, Keep
	}
	switch e {
	case ExecutionFailed:
		return LeaseState{Done: true}, Release
	case CommitAcked, CommitRejected, Expired:
		return LeaseState{Done: true}, Settled
	default: // Dispatched, Renewed
		return s, Keep
	}
}
