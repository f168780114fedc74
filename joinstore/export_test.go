package joinstore

import (
	"context"
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
