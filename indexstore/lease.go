package indexstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrNotHolder: a fenced commit or rewind whose indexing lease is no
// longer the live one (another replica took it over); nothing was written.
var ErrNotHolder = errors.New("indexing lease lost")

func (x *Index) lease() string      { return x.prefix + "lease" }
func (x *Index) leaseFence() string { return x.prefix + "leasefence" }

// Lease is one holding of the indexing lease.
type Lease struct {
	// Holder is the replica holding it (or, when Held is false, the one
	// that does).
	Holder string
	// Token grows with every new holding; Held says whether the caller
	// holds it.
	Token int64
	Held  bool
}

// value is what the lease key holds for this holding.
func (l Lease) value() string { return fmt.Sprintf("%s %d", l.Holder, l.Token) }

// AcquireLease takes the indexing lease for ttl, or renews it when holder
// holds it already (same token). When another holder's lease is live it
// returns Held false with that holder.
func (x *Index) AcquireLease(ctx context.Context, holder string, ttl time.Duration) (Lease, error) {
	res, err := scriptLease.Run(ctx, x.rdb, []string{x.lease(), x.leaseFence()}, holder, ttl.Milliseconds()).StringSlice()
	if err != nil {
		return Lease{}, fmt.Errorf("indexing lease: %w", err)
	}
	if len(res) != 2 {
		return Lease{}, fmt.Errorf("indexing lease: unexpected reply %q", res)
	}
	if res[0] == "held" {
		return Lease{Holder: res[1]}, nil
	}
	var token int64
	if _, err := fmt.Sscan(res[1], &token); err != nil {
		return Lease{}, fmt.Errorf("indexing lease: token %q", res[1])
	}
	return Lease{Holder: holder, Token: token, Held: true}, nil
}

// ReleaseLease gives a holding back (when it is still the live one).
func (x *Index) ReleaseLease(ctx context.Context, l Lease) error {
	return scriptUnlease.Run(ctx, x.rdb, []string{x.lease()}, l.value()).Err()
}

// fenceHolder is the holding Commit and Rewind are fenced by (nil: none).
type fenceHolder = atomic.Pointer[string]

// Fence makes this Index's commits and rewinds (and those of every copy
// sharing it) apply only while l is the live indexing lease; a zero Lease
// removes the fence.
func (x *Index) Fence(l Lease) {
	if !l.Held {
		x.fence.Store(nil)
		return
	}
	v := l.value()
	x.fence.Store(&v)
}

// fenceArg is the last ARGV of commit and rewind.
func (x *Index) fenceArg() string {
	if v := x.fence.Load(); v != nil {
		return *v
	}
	return ""
}
