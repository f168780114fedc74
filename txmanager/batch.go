package txmanager

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"
)

// receipts reads the receipts of hashes, in one JSON-RPC batch when the
// chain client exposes its RPC client (ethclient does), else one call each.
// A transaction without a receipt maps to nil.
func (m *Manager) receipts(ctx context.Context, hashes []common.Hash) (map[common.Hash]*types.Receipt, error) {
	out := make(map[common.Hash]*types.Receipt, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	if c, ok := m.cfg.Chain.(interface{ Client() *rpc.Client }); ok && c.Client() != nil {
		elems := make([]rpc.BatchElem, len(hashes))
		res := make([]*types.Receipt, len(hashes))
		for i, h := range hashes {
			elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{h}, Result: &res[i]}
		}
		if err := c.Client().BatchCallContext(ctx, elems); err != nil {
			return nil, fmt.Errorf("read %d receipts: %w", len(hashes), err)
		}
		for i, h := range hashes {
			if elems[i].Error != nil {
				return nil, fmt.Errorf("read receipt of %s: %w", h.Hex(), elems[i].Error)
			}
			out[h] = res[i]
		}
		return out, nil
	}
	for _, h := range hashes {
		r, err := m.cfg.Chain.TransactionReceipt(ctx, h)
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return nil, fmt.Errorf("read receipt of %s: %w", h.Hex(), err)
		}
		out[h] = r
	}
	return out, nil
}

// transition is one Lua transition the tick commits, and what to do with
// its reply.
type transition struct {
	script *redis.Script
	keys   []string
	args   []any
	then   func(reply string)
}

// commit runs transitions in one pipeline (one round trip). A server that
// lost its script cache (a restart) gets the scripts loaded and the
// pipeline once more: every transition is a compare-and-set, so one that
// ran already answers "stale" the second time.
func (m *Manager) commit(ctx context.Context, ts []transition) error {
	if len(ts) == 0 {
		return nil
	}
	for attempt := 0; ; attempt++ {
		pipe := m.cfg.Redis.Pipeline()
		cmds := make([]*redis.Cmd, len(ts))
		for i, t := range ts {
			cmds[i] = t.script.EvalSha(ctx, pipe, t.keys, t.args...)
		}
		_, err := pipe.Exec(ctx)
		if err != nil && attempt == 0 && strings.Contains(err.Error(), "NOSCRIPT") {
			if err := Preload(ctx, m.cfg.Redis); err != nil {
				return err
			}
			continue
		}
		for i, c := range cmds {
			reply, err := c.Text()
			if err != nil {
				return fmt.Errorf("txmanager: commit: %w", err)
			}
			ts[i].then(reply)
		}
		return nil
	}
}
