package deploy

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
)

// Rule deploys a rule document as its own XRC-137 contract and returns its
// address (lower-case hex).
func Rule(ctx context.Context, s *chain.Sender, text []byte) (string, error) {
	c, _, err := chain.DeployRule(ctx, s, text)
	if err != nil {
		return "", err
	}
	return strings.ToLower(c.Address.Hex()), nil
}

// Register puts an orchestration's text into the registry under id and
// returns the hash the registry recorded, refused when it is not the
// text's own (registry.Hash): sessions pin that hash.
func Register(ctx context.Context, reg *chain.Registry, s *chain.Sender, id string, text []byte) (common.Hash, error) {
	w, err := reg.Put(ctx, s, id, text)
	if err != nil {
		return common.Hash{}, err
	}
	if local := registry.Hash(text); w.Hash != local {
		return common.Hash{}, fmt.Errorf("the registry recorded hash %s for %q, but the text hashes to %s", w.Hash.Hex(), id, local.Hex())
	}
	return w.Hash, nil
}
