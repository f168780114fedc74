package joinstore

import (
	"context"
	"encoding/json"
	"time"
)

// KeyOf is the Redis key of session r with the given suffix ("meta",
// "p:3", "g:7", ...): the gate conformance test writes generated states
// directly.
func KeyOf(r Root, suffix string) string { return keysOf(r).prefix + suffix }

// RecoverClaim releases c's lease as Recover does, without Recover's own
// look at the lease first: release_lease alone decides.
func (s *Store) RecoverClaim(ctx context.Context, c Claim, now, retryAt time.Time) (ReleaseResult, error) {
	return s.release(ctx, c, now, retryAt, "recover")
}

// SetStartHook makes Start call f before each call after the allocation
// ("index-entry", "create", "index"); an error f returns stands for that
// call failing.
func (s *Store) SetStartHook(f func(stage string) error) { s.startHook = f }

// ClaimFirstCall runs claim.lua's first call of a Claim alone (no repeat)
// and returns its raw reply: a test looks at a "need" reply and at what
// the call did not write.
func (s *Store) ClaimFirstCall(ctx context.Context, root Root, now time.Time, lease time.Duration, worker string, steps StepTable, iters []int64) ([]string, error) {
	table, err := json.Marshal(steps)
	if err != nil {
		return nil, err
	}
	keys, args := s.claimArgs(keysOf(root), now, lease, worker, table, iters)
	return s.eval(ctx, scriptClaim, keys, args...).StringSlice()
}

// SetRepairHook sets the hook RepairCounters runs after each read of an
// owner's counter.
func (s *Store) SetRepairHook(f func(owner string)) { s.repairHook = f }
