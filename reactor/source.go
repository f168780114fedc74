package reactor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

// Source finds the orchestration a session runs: the text registered under
// (xrc729, ostcId), and when hash is not empty only text with that hash.
type Source interface {
	Orchestration(ctx context.Context, xrc729, ostcID string, hash common.Hash) (*registry.Orchestration, error)
}

// ErrHashMismatch: the session pins an orchestration hash that the source
// does not serve. Nothing runs.
var ErrHashMismatch = errors.New("orchestration hash mismatch")

// ErrUnknownOrchestration: the source has no such orchestration.
var ErrUnknownOrchestration = errors.New("unknown orchestration")

// StaticSource serves a fixed set of orchestrations by ostcId (any registry),
// e.g. files given on the command line; safe for concurrent use.
type StaticSource struct {
	mu   sync.RWMutex
	byID map[string]*registry.Orchestration
}

// NewStaticSource serves the given orchestrations under their own ids.
func NewStaticSource(os ...*registry.Orchestration) *StaticSource {
	s := &StaticSource{byID: map[string]*registry.Orchestration{}}
	for _, o := range os {
		s.byID[o.ID] = o
	}
	return s
}

// Orchestration implements Source.
func (s *StaticSource) Orchestration(_ context.Context, _ string, ostcID string, hash common.Hash) (*registry.Orchestration, error) {
	s.mu.RLock()
	o := s.byID[ostcID]
	s.mu.RUnlock()
	if o == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownOrchestration, ostcID)
	}
	return o, checkPin(o, hash)
}

// checkPin enforces hash pinning: a session that names a hash runs only
// that exact text.
func checkPin(o *registry.Orchestration, hash common.Hash) error {
	if hash != (common.Hash{}) && hash != o.Hash {
		return fmt.Errorf("%w: the session pins %s, but orchestration %q is %s", ErrHashMismatch, hash.Hex(), o.ID, o.Hash.Hex())
	}
	return nil
}

// FirstSource asks each source in turn and returns the first orchestration
// found; a source that does not know the orchestration passes to the next.
func FirstSource(sources ...Source) Source { return firstSource(sources) }

type firstSource []Source

func (fs firstSource) Orchestration(ctx context.Context, xrc729, ostcID string, hash common.Hash) (*registry.Orchestration, error) {
	err := fmt.Errorf("%w %q (no source)", ErrUnknownOrchestration, ostcID)
	for _, s := range fs {
		var o *registry.Orchestration
		if o, err = s.Orchestration(ctx, xrc729, ostcID, hash); !errors.Is(err, ErrUnknownOrchestration) {
			return o, err
		}
	}
	return nil, err
}
