package logseal

import (
	"context"
	"crypto/ecdh"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
)

// KeySource reads an account's registered read public key (the 65-byte
// SEC1 key; empty when none): *chain.KeyRegistry.
type KeySource interface {
	ReadKey(ctx context.Context, owner common.Address) ([]byte, error)
}

// Defaults of the read-key cache.
const (
	// DefaultKeyTTL is how long a read key (or its absence) is reused
	// before the registry is asked again.
	DefaultKeyTTL = time.Minute
	// MaxCachedKeys bounds the cache; past it, it starts over.
	MaxCachedKeys = 4096
	// MaxReaders bounds the readers of one bundle (the owner and its
	// branch's grants).
	MaxReaders = 64
)

// Sealer implements evidence.Sealer. Set the fields before the first Seal;
// it is then safe for concurrent use.
type Sealer struct {
	// Keys reads the readers' registered read keys (required).
	Keys KeySource
	// KeyTTL is how long a looked-up key is reused (0: DefaultKeyTTL;
	// negative: never cached).
	KeyTTL time.Duration
	// Now is the cache's clock (nil: time.Now).
	Now func() time.Time

	mu    sync.Mutex
	cache map[common.Address]cached
}

type cached struct {
	pub *ecdh.PublicKey // nil: none registered, or not a valid key
	at  time.Time
}

var _ evidence.Sealer = (*Sealer)(nil)

// Seal implements evidence.Sealer: plaintext as an XGR1 envelope, its data
// key wrapped for every reader with a registered read key (scope 2, the
// envelope's RID). Readers are addresses; the error names the reader and
// never holds plaintext.
func (s *Sealer) Seal(ctx context.Context, plaintext []byte, readers []string) (*evidence.Sealed, error) {
	if s.Keys == nil {
		return nil, errors.New("logseal: no key registry is configured")
	}
	if len(readers) > MaxReaders {
		return nil, fmt.Errorf("logseal: %d readers, at most %d", len(readers), MaxReaders)
	}
	pubs := make([]*ecdh.PublicKey, len(readers))
	for i, r := range readers {
		a, err := grant.NormalizeAddress(r)
		if err != nil {
			return nil, fmt.Errorf("logseal: readers[%d]: %w", i, err)
		}
		if pubs[i], err = s.key(ctx, common.HexToAddress(a)); err != nil {
			return nil, fmt.Errorf("logseal: read key of %s: %w", a, err)
		}
	}
	dek, err := envelope.NewDEK()
	if err != nil {
		return nil, fmt.Errorf("logseal: %w", err)
	}
	sealed, err := envelope.Seal(dek, plaintext)
	if err != nil {
		return nil, fmt.Errorf("logseal: %w", err)
	}
	out := &evidence.Sealed{RID: grant.RID(sealed.RID), Blob: sealed.String(), Wrapped: map[string]string{}}
	for i, r := range readers {
		if pubs[i] == nil {
			out.Missing = append(out.Missing, r)
			continue
		}
		w, err := envelope.Wrap(dek, pubs[i], envelope.ScopeLog, sealed.RID)
		if err != nil {
			return nil, fmt.Errorf("logseal: wrapping for %s: %w", r, err)
		}
		out.Wrapped[r] = w.String()
	}
	return out, nil
}

// key is owner's registered read key (nil: none, or not a P-256 key).
func (s *Sealer) key(ctx context.Context, owner common.Address) (*ecdh.PublicKey, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	ttl := s.KeyTTL
	if ttl == 0 {
		ttl = DefaultKeyTTL
	}
	if ttl > 0 {
		s.mu.Lock()
		c, ok := s.cache[owner]
		s.mu.Unlock()
		if ok && now().Sub(c.at) < ttl {
			return c.pub, nil
		}
	}
	raw, err := s.Keys.ReadKey(ctx, owner)
	if err != nil {
		return nil, err
	}
	var pub *ecdh.PublicKey
	if len(raw) > 0 {
		// A key that does not parse is no key: the reader is reported.
		pub, _ = envelope.ParsePublicKey(raw)
	}
	if ttl > 0 {
		s.mu.Lock()
		if s.cache == nil || len(s.cache) >= MaxCachedKeys {
			s.cache = map[common.Address]cached{}
		}
		s.cache[owner] = cached{pub: pub, at: now()}
		s.mu.Unlock()
	}
	return pub, nil
}
