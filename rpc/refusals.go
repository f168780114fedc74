package rpc

import (
	"sync"
	"time"
)

// Defaults of the per-signer refusal budget (Config.RefusalBurst,
// Config.RefusalEvery): a signer may have 20 calls refused (or pending) at
// once, and earns one more every 3 s.
const (
	DefaultRefusalBurst = 20
	DefaultRefusalEvery = 3 * time.Second
	// maxSigners bounds the signers the budget remembers.
	maxSigners = 10000
)

// refusals is a token bucket per signer, in memory (per replica). Every
// wake, kill or allow-mode list takes a token before it reads Redis; an
// accepted call gives it back, a refused one keeps it spent. A signer
// without a token is refused at once, without any Redis read: a permit
// that is refused cannot be replayed without bound, and one signer's
// calls in flight are bounded too.
type refusals struct {
	burst float64
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	signers map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newRefusals(burst int, every time.Duration, now func() time.Time) *refusals {
	return &refusals{burst: float64(burst), every: every, now: now, signers: map[string]*bucket{}}
}

// take takes a token of signer; false when it has none left.
func (r *refusals) take(signer string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	b := r.signers[signer]
	if b == nil {
		if len(r.signers) >= maxSigners {
			r.forget(now)
		}
		if len(r.signers) >= maxSigners {
			// Every remembered signer has refusals outstanding: forgetting
			// one would give it its budget back. A new signer waits until
			// a bucket is full again.
			return false
		}
		b = &bucket{tokens: r.burst, at: now}
		r.signers[signer] = b
	}
	r.refill(b, now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// give returns a token taken for a call that was not refused.
func (r *refusals) give(signer string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.signers[signer]; b != nil {
		b.tokens = min(b.tokens+1, r.burst)
	}
}

// wait is how long signer waits for its next token.
func (r *refusals) wait(signer string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.signers[signer]
	if b == nil || b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(r.every))
}

func (r *refusals) refill(b *bucket, now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(b.tokens+float64(d)/float64(r.every), r.burst)
		b.at = now
	}
}

// forget drops the signers whose buckets are full again: they lose
// nothing by being forgotten. A bucket with refusals outstanding is never
// dropped, so that many new keys cannot reset a signer's budget (memory
// stays bounded: take refuses new signers while the table is full).
func (r *refusals) forget(now time.Time) {
	for k, b := range r.signers {
		if r.refill(b, now); b.tokens >= r.burst {
			delete(r.signers, k)
		}
	}
}
