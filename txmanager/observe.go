package txmanager

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// DefaultLeaseTTL is Config.LeaseTTL's default.
const DefaultLeaseTTL = 10 * time.Second

// silentTicks is how many Polls a lease holder may go without renewing
// before the other replicas stop waiting for its tick and read their own
// keys' receipts from the chain (Observe).
const silentTicks = 3

// Observe is Status for a caller waiting on its own key. While the sender's
// lease holder renews its lease, it is Status: the holder's tick records
// receipts. When the holder has gone silent for silentTicks Polls (a replica
// that died holds its lease until LeaseTTL ends), a signed or included key
// is looked up on the chain: if one of its attempts has a receipt in a final
// block (Finality), Observe returns the record as the holder's tick will
// write it — final, with the receipt — and Learned set. Nothing is written:
// the next holder records it. So a replica's own executions finish when
// their transactions are final, not when a dead replica's lease ends.
func (m *Manager) Observe(ctx context.Context, key string) (Record, error) {
	rec, err := m.Status(ctx, key)
	if err != nil || (rec.State != Signed && rec.State != Included) {
		return rec, err
	}
	silent, err := m.holderSilent(ctx)
	if err != nil || !silent {
		return rec, err
	}
	hashes, err := m.attemptHashes(ctx, rec)
	if err != nil {
		return rec, err
	}
	rcpts, err := m.receipts(ctx, hashes)
	if err != nil {
		return rec, err
	}
	var r *types.Receipt
	for _, h := range hashes {
		if r = rcpts[h]; r != nil {
			break
		}
	}
	if r == nil {
		return rec, nil
	}
	h, err := m.cfg.Chain.HeaderByNumber(ctx, nil)
	if err != nil {
		return rec, fmt.Errorf("txmanager: read head: %w", err)
	}
	finalHead, ok, err := m.finalHead(ctx, h.Number.Uint64(), true)
	if err != nil || !ok || r.BlockNumber.Uint64() > finalHead {
		return rec, err
	}
	return learned(rec, r), nil
}

// learned is rec as settle.lua makes it final with receipt r.
func learned(rec Record, r *types.Receipt) Record {
	rec.State, rec.Learned = Final, true
	rec.Outcome = Success
	if r.Status != types.ReceiptStatusSuccessful {
		rec.Outcome = Reverted
	}
	rec.TxHash, rec.Block, rec.BlockHash = r.TxHash, r.BlockNumber.Uint64(), r.BlockHash
	rec.GasUsed, rec.ReceiptStatus, rec.EffectiveGasPrice = r.GasUsed, r.Status, r.EffectiveGasPrice
	return rec
}

// holderSilent reports whether another replica holds the sender's lease and
// has not renewed it for silentTicks Polls (by Redis's clock, which wrote
// leaseAt).
func (m *Manager) holderSilent(ctx context.Context) (bool, error) {
	pipe := m.cfg.Redis.Pipeline()
	l := pipe.HMGet(ctx, m.k.sender(), "lease", "leaseAt")
	now := pipe.Time(ctx)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, fmt.Errorf("txmanager: read the sender's lease: %w", err)
	}
	v := l.Val()
	holder, _ := v[0].(string)
	at, _ := v[1].(string)
	if holder == "" || holder == m.cfg.ID {
		return false, nil
	}
	ms, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return true, nil // a lease written before leaseAt existed
	}
	return now.Val().Sub(time.UnixMilli(ms)) > silentTicks*m.cfg.Poll, nil
}

// attemptHashes are the transactions of rec that may have been mined: the
// included one, or every signed attempt, newest first.
func (m *Manager) attemptHashes(ctx context.Context, rec Record) ([]common.Hash, error) {
	if rec.State == Included {
		return []common.Hash{rec.TxHash}, nil
	}
	raw, err := m.cfg.Redis.LRange(ctx, m.k.attempts(rec.Key), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("txmanager: attempts of %q: %w", rec.Key, err)
	}
	out := make([]common.Hash, 0, len(raw))
	for i := len(raw) - 1; i >= 0; i-- {
		var a attempt
		if err := json.Unmarshal([]byte(raw[i]), &a); err != nil {
			return nil, fmt.Errorf("txmanager: attempts of %q: %w", rec.Key, err)
		}
		out = append(out, common.HexToHash(a.Hash))
	}
	return out, nil
}
