package indexer

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexstore"
)

// Followed tells which XRC-729 registries the indexer follows: those the
// config lists under registries, and, with discover: true, those it
// discovered (their XRC729Deployed log is recorded in the index, and undone
// with it on a reorg). The JSON-RPC gateway starts sessions of these only.
type Followed struct {
	Registries []common.Address
	Discover   bool
	// Index is the chain's index (needed with Discover).
	Index *indexstore.Index
}

// Follows reports whether registry is followed: a configured one is
// answered from memory, a discovered one with one read of its index entry.
func (f *Followed) Follows(ctx context.Context, registry common.Address) (bool, error) {
	for _, r := range f.Registries {
		if r == registry {
			return true, nil
		}
	}
	if !f.Discover || f.Index == nil {
		return false, nil
	}
	e, err := f.Index.Entry(ctx, discoveredKey(registry))
	if err != nil {
		return false, fmt.Errorf("read the index entry of registry %s: %w", registry.Hex(), err)
	}
	return e != nil, nil
}

// discoveredKey is the index entry a discovered registry leaves.
func discoveredKey(registry common.Address) string {
	return "registry:" + strings.ToLower(registry.Hex())
}
