package replica

import (
	"context"
	"fmt"
	"sort"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
)

// openChain dials cfg.Node, or takes the caller's cfg.Chain, and reads
// the chain id.
func (r *Replica) openChain(ctx context.Context) error {
	switch {
	case r.cfg.Node != "":
		client, id, err := chain.Dial(ctx, r.cfg.Node)
		if err != nil {
			return errPart(PartNode, err)
		}
		r.onClose(closeClient(client))
		r.chain, r.chainID = client, id.Uint64()
	case r.cfg.Chain != nil:
		id, err := r.cfg.Chain.ChainID(ctx)
		if err != nil {
			return errPart(PartNode, fmt.Errorf("read the chain id: %w", err))
		}
		r.chain, r.chainID = r.cfg.Chain, id.Uint64()
	}
	return nil
}

// openIndexStore is the chain's index in Redis and the verified cache of
// orchestrations and rules over it (nothing without a chain).
func (r *Replica) openIndexStore(context.Context) error {
	if r.chain == nil {
		return nil
	}
	r.idx = indexstore.New(r.rdb, r.chainID)
	r.cache = indexer.NewCacheSource(r.idx, r.chain)
	return nil
}

// dialBackends dials the nodes of cfg.Rules.Backends for contract reads.
func (r *Replica) dialBackends(ctx context.Context) (map[string]ethereum.ContractCaller, error) {
	if len(r.cfg.Rules.Backends) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(r.cfg.Rules.Backends))
	for name := range r.cfg.Rules.Backends {
		names = append(names, name)
	}
	sort.Strings(names)
	out := map[string]ethereum.ContractCaller{}
	for _, name := range names {
		b, _, err := chain.Dial(ctx, r.cfg.Rules.Backends[name])
		if err != nil {
			return nil, &Error{Part: PartBackend, Name: name, Err: err}
		}
		r.onClose(closeClient(b))
		out[name] = b
	}
	return out, nil
}

// closeClient is a closer of a node client.
func closeClient(c *ethclient.Client) func() error {
	return func() error { c.Close(); return nil }
}
