package indexer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// CacheSource serves orchestrations from the verified cache and falls back
// to the chain (getOSTC, checked against getOSTCMeta) for ids the cache does
// not hold. Parsed documents are kept in a bounded memory cache by hash.
type CacheSource struct {
	Index *indexstore.Index
	// Chain is the fallback; nil means cache only.
	Chain  chain.Backend
	parsed *registry.MemoryCache
}

// NewCacheSource returns a source over the index (and chain, if not nil).
func NewCacheSource(idx *indexstore.Index, c chain.Backend) *CacheSource {
	return &CacheSource{Index: idx, Chain: c, parsed: registry.NewMemoryCache(256)}
}

// Orchestration implements reactor.Source.
func (s *CacheSource) Orchestration(ctx context.Context, xrc729, ostcID string, pin common.Hash) (*registry.Orchestration, error) {
	if !common.IsHexAddress(xrc729) {
		return nil, fmt.Errorf("%w: registry %q is not an address", reactor.ErrUnknownOrchestration, xrc729)
	}
	reg := common.HexToAddress(xrc729)
	key := registry.CacheKey{Registry: reg, OstcID: ostcID}
	e, err := s.Index.Entry(ctx, indexstore.OSTCKey(reg, ostcID))
	if err != nil {
		return nil, err
	}
	var text []byte
	var hash common.Hash
	switch {
	case e != nil && e["mismatch"] != "":
		return nil, fmt.Errorf("orchestration %q of %s: its on-chain text does not match its hash (%s); it is never served", ostcID, reg.Hex(), e["mismatch"])
	case e != nil:
		text, hash = []byte(e["json"]), common.HexToHash(e["hash"])
	case s.Chain != nil:
		meta, raw, err := chain.NewRegistry(reg, s.Chain).Snapshot(ctx, ostcID)
		if errors.Is(err, chain.ErrNotFound) {
			return nil, fmt.Errorf("%w %q in registry %s", reactor.ErrUnknownOrchestration, ostcID, reg.Hex())
		}
		if err != nil {
			return nil, err
		}
		text, hash = raw, meta.Hash
	default:
		return nil, fmt.Errorf("%w %q in registry %s (not cached yet)", reactor.ErrUnknownOrchestration, ostcID, reg.Hex())
	}
	if got := registry.Hash(text); got != hash {
		return nil, fmt.Errorf("orchestration %q of %s: text hashes to %s, the registry says %s", ostcID, reg.Hex(), got.Hex(), hash.Hex())
	}
	if pin != (common.Hash{}) && pin != hash {
		return nil, fmt.Errorf("%w: the session pins %s, but registry %s serves %q as %s", reactor.ErrHashMismatch, pin.Hex(), reg.Hex(), ostcID, hash.Hex())
	}
	if c, ok, _ := s.parsed.Get(ctx, key); ok && c.Hash == hash {
		return c.Orchestration, nil
	}
	o, err := registry.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("orchestration %q of %s: %w", ostcID, reg.Hex(), err)
	}
	s.parsed.Put(ctx, key, registry.CacheEntry{Hash: hash, Orchestration: o})
	return o, nil
}
