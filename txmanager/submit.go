package txmanager

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"
)

// Submit accepts an execution. A key seen before returns its record as it
// is (never a second nonce, nothing sent). A new key whose exact call (to,
// value, data) is that of an unclaimed transaction of the sender on chain
// (one no record holds: sent before Redis was restored from a backup; see
// reconcile.go) adopts it: its record is created included with that
// transaction, and nothing is signed. While the chain's nonce is ahead of
// the sender's and the blocks are not read yet, Submit reads up to
// ReconcileBlocks of them itself first; with more left, a new key that
// adopts nothing gets ErrReconciling (nothing stored; submit again). Any other
// new key is stored with the
// next nonce, signed, its signed bytes stored, and only then broadcast; or,
// when MaxInFlight transactions are unmined, stored as queued (the tick
// assigns its nonce later). Invalid requests and gas estimates that fail
// store nothing. A failed broadcast is not an error: the bytes are stored
// and the tick sends them again.
//
// Redis round trips: 2 for a new key (submit, record), 1 for a known one.
func (m *Manager) Submit(ctx context.Context, req Request) (Record, error) {
	recs, err := m.SubmitBatch(ctx, []Request{req})
	if len(recs) == 0 {
		return Record{}, err
	}
	return recs[0], err
}

// SubmitBatch is Submit for several executions at once, in order (their
// nonces follow the order of reqs): each transition of the batch is one
// Redis pipeline and the broadcasts one JSON-RPC batch, so a batch costs 2
// Redis round trips however many keys it holds. A request that fails its
// check or its gas estimate fails the whole batch before anything is
// stored. A key may appear once per batch.
func (m *Manager) SubmitBatch(ctx context.Context, reqs []Request) ([]Record, error) {
	out := make([]Record, len(reqs))
	answered := make([]bool, len(reqs))
	seen := make(map[string]bool, len(reqs))
	for i := range reqs {
		req := &reqs[i]
		if err := req.check(m.cfg.MaxGasLimit); err != nil {
			return nil, err
		}
		if seen[req.Key] {
			return nil, fmt.Errorf("request %q: the key is in the batch twice", req.Key)
		}
		seen[req.Key] = true
		if req.Value == nil {
			req.Value = new(big.Int)
		}
		if req.GasLimit > 0 {
			continue
		}
		est, err := m.cfg.Chain.EstimateGas(ctx, ethereum.CallMsg{From: m.from, To: &req.To, Value: req.Value, Data: req.Data})
		if err != nil {
			// A key submitted before may not be callable any more (its call
			// ran): it is answered from its record.
			if rec, serr := m.Status(ctx, req.Key); serr == nil {
				out[i], answered[i] = rec, true
				continue
			}
			return nil, fmt.Errorf("request %q: estimate gas of the call to %s: %w", req.Key, req.To.Hex(), err)
		}
		req.GasLimit = est + est*GasMarginPercent/100
		if m.cfg.MaxGasLimit > 0 && req.GasLimit > m.cfg.MaxGasLimit {
			return nil, fmt.Errorf("request %q: estimated gas %d (with %d%% margin) is above the cap %d (MaxGasLimit)", req.Key, req.GasLimit, GasMarginPercent, m.cfg.MaxGasLimit)
		}
	}
	if err := m.firstSync(ctx); err != nil {
		return nil, err
	}
	var calls []scriptCall
	var idx []int
	for i, req := range reqs {
		if answered[i] {
			continue
		}
		idx = append(idx, i)
		calls = append(calls, scriptCall{keys: []string{m.k.sender(), m.k.record(req.Key), m.k.queue(), m.k.pending(),
			m.k.included(), m.k.attempts(req.Key), m.k.unclaimed(), m.k.unclaimedTx(), m.k.unclaimedBy()},
			args: []any{req.Key, strings.ToLower(req.To.Hex()), hexutil.Encode(req.Data), req.Value.String(),
				strconv.FormatUint(req.GasLimit, 10), m.cfg.MaxInFlight, ""}})
	}
	replies, err := m.runAll(ctx, scriptSubmit, calls)
	if err != nil && strings.HasPrefix(err.Error(), "UNRECONCILED") {
		// The chain is ahead and its blocks are not read yet: read them
		// now (reconcile.go), then submit once more. A key the first run
		// stored answers "exists" the second time.
		if err := m.catchUp(ctx); err != nil {
			return nil, err
		}
		replies, err = m.runAll(ctx, scriptSubmit, calls)
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "UNRECONCILED") {
			return nil, fmt.Errorf("%w: %v; the lease holder's tick reads them, submit again", ErrReconciling, strings.TrimPrefix(err.Error(), "UNRECONCILED "))
		}
		return nil, fmt.Errorf("txmanager: submit: %w", err)
	}
	now := time.Now()
	var reserved []int
	for j, i := range idx {
		req, res := reqs[i], replies[j]
		rec := Record{Key: req.Key, Kind: "exec", To: req.To, Data: req.Data, Value: req.Value, GasLimit: req.GasLimit, CreatedAt: now}
		switch res[0] {
		case "exists":
			if rec, err = parseRecord(pairs(res[1:])); err != nil {
				return nil, err
			}
			if rec.State == Reserved && rec.HasNonce {
				// Reserved but not signed: this call's own reservation
				// whose reply was lost (the client sent the script again
				// and got this answer), or a caller that died before
				// signing. Sign it now: the record keeps the first
				// signature of the nonce (record.lua), so a second signer
				// only sends the stored bytes. Leaving it to the lease
				// holder's ReserveTimeout would hold every later nonce.
				reserved = append(reserved, i)
			}
		case "adopted":
			// Redis had no record of the key, and the chain holds a
			// transaction of its exact call that no record holds (sent
			// before a restore): the key takes it; nothing is signed.
			if rec, err = parseRecord(pairs(res[1:])); err != nil {
				return nil, err
			}
			m.cfg.Log.Info("txmanager: an execution adopted the chain's transaction of its call (sent before Redis lost its record); not sent again",
				"key", rec.Key, "nonce", rec.Nonce, "tx", rec.TxHash.Hex(), "block", rec.Block, "sender", m.from.Hex())
		case "queued":
			rec.State = Queued
		default:
			nonce, err := strconv.ParseUint(res[1].(string), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("txmanager: submit %q: nonce %v: %w", req.Key, res[1], err)
			}
			rec.State, rec.Nonce, rec.HasNonce, rec.ReservedAt = Reserved, nonce, true, now
			reserved = append(reserved, i)
		}
		out[i] = rec
	}
	if len(reserved) == 0 {
		return out, nil
	}
	for _, i := range reserved {
		if m.crashed("reserved", out[i].Key) {
			return out, errCrashed
		}
	}
	return out, m.signRecordSendAll(ctx, out, reserved)
}

// signRecordSendAll signs the reserved records out[i] for i in idx with
// their nonces, records the bytes in one pipeline (per key, the first
// signature of a reservation wins) and broadcasts what is recorded.
func (m *Manager) signRecordSendAll(ctx context.Context, out []Record, idx []int) error {
	mk, head, err := m.currentMarket(ctx)
	if err != nil {
		return fmt.Errorf("txmanager: price: %w", err)
	}
	fees := InitialFees(m.policy, mk)
	calls := make([]scriptCall, len(idx))
	txs := make([]*types.Transaction, len(idx))
	raws := make([][]byte, len(idx))
	for j, i := range idx {
		rec := out[i]
		if txs[j], raws[j], err = m.sign(rec, fees); err != nil {
			return fmt.Errorf("txmanager: sign %q: %w", rec.Key, err)
		}
		calls[j] = scriptCall{keys: []string{m.k.record(rec.Key), m.k.attempts(rec.Key)},
			args: []any{strconv.FormatUint(rec.Nonce, 10), txs[j].Hash().Hex(), hexutil.Encode(raws[j]), bigStr(fees.TipCap),
				bigStr(fees.FeeCap), bigStr(fees.GasPrice), strconv.FormatUint(head, 10), ""}}
	}
	for _, i := range idx {
		if m.crashed("signed", out[i].Key) {
			return errCrashed
		}
	}
	replies, err := m.runAll(ctx, scriptRecord, calls)
	if err != nil {
		return fmt.Errorf("txmanager: record: %w", err)
	}
	var send []int
	for j, i := range idx {
		rec := out[i]
		if replies[j][0] == "taken" {
			// Another replica recorded its signature of this reservation
			// first: only the stored bytes may be sent.
			stored, err := parseRecord(pairs(replies[j][1:]))
			if err != nil {
				return err
			}
			out[i] = stored
			if stored.State == Signed {
				send = append(send, i)
			}
			continue
		}
		rec.State, rec.TxHash, rec.Raw, rec.Attempts, rec.AttemptBlock, rec.SignedAt = Signed, txs[j].Hash(), raws[j], 1, head, time.Now()
		rec.TipCap, rec.FeeCap, rec.GasPrice = fees.TipCap, fees.FeeCap, fees.GasPrice
		out[i] = rec
		m.cfg.Metrics.attempt(m.labels)
		send = append(send, i)
	}
	for _, i := range send {
		if m.crashed("recorded", out[i].Key) {
			return errCrashed
		}
	}
	m.broadcastAll(ctx, out, send)
	for _, i := range send {
		if !out[i].CreatedAt.IsZero() {
			m.cfg.Metrics.broadcastAfter(m.labels, time.Since(out[i].CreatedAt))
		}
	}
	for _, i := range send {
		if m.crashed("broadcast", out[i].Key) {
			return errCrashed
		}
	}
	return nil
}

// signRecordSend is signRecordSendAll for one reserved record.
func (m *Manager) signRecordSend(ctx context.Context, rec Record) (Record, error) {
	out := []Record{rec}
	err := m.signRecordSendAll(ctx, out, []int{0})
	return out[0], err
}

// broadcastAll sends the stored bytes of out[i] for i in idx, in one
// JSON-RPC batch when the chain client exposes its RPC client.
func (m *Manager) broadcastAll(ctx context.Context, out []Record, idx []int) {
	c, ok := m.cfg.Chain.(interface{ Client() *rpc.Client })
	if !ok || c.Client() == nil || len(idx) == 1 {
		for _, i := range idx {
			m.broadcast(ctx, out[i].Key, out[i].Raw)
		}
		return
	}
	elems := make([]rpc.BatchElem, len(idx))
	now := time.Now()
	m.mu.Lock()
	for j, i := range idx {
		elems[j] = rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(out[i].Raw)}, Result: new(any)}
		m.sent[out[i].Key] = now
	}
	m.mu.Unlock()
	err := c.Client().BatchCallContext(ctx, elems)
	for j, i := range idx {
		e := err
		if e == nil {
			e = elems[j].Error
			m.noteSend(out[i].Key, out[i].TxHash, e)
		}
		if e != nil && !benignSendError(e) {
			m.cfg.Metrics.broadcastError(m.labels)
			m.cfg.Log.Warn("txmanager: broadcast failed; the tick sends it again", "key", out[i].Key, "tx", out[i].TxHash.Hex(), "nonce", out[i].Nonce, "err", e)
		}
	}
}

// scriptCall is one run of a script: its keys and arguments.
type scriptCall struct {
	keys []string
	args []any
}

// runAll runs one script for every call in one pipeline and returns each
// reply as a list. When nothing ran because the server lost its script
// cache (NOSCRIPT) or the sender's next nonce was never read (UNSYNCED),
// it loads the scripts or reads the nonce and runs the pipeline once more.
func (m *Manager) runAll(ctx context.Context, sc *redis.Script, calls []scriptCall) ([][]any, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	for attempt := 0; ; attempt++ {
		pipe := m.cfg.Redis.Pipeline()
		cmds := make([]*redis.Cmd, len(calls))
		for i, c := range calls {
			cmds[i] = sc.EvalSha(ctx, pipe, c.keys, c.args...)
		}
		_, err := pipe.Exec(ctx)
		if err != nil && attempt == 0 && allFailed(cmds, "NOSCRIPT") {
			if err := Preload(ctx, m.cfg.Redis); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && attempt < 2 && allFailed(cmds, "UNSYNCED") {
			if err := m.syncNonce(ctx, ""); err != nil {
				return nil, err
			}
			continue
		}
		out := make([][]any, len(cmds))
		for i, c := range cmds {
			if out[i], err = c.Slice(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// allFailed reports whether every command failed with an error starting
// with prefix (so none of them ran).
func allFailed(cmds []*redis.Cmd, prefix string) bool {
	for _, c := range cmds {
		var re redis.Error
		if err := c.Err(); err == nil || !(errors.As(err, &re) && strings.HasPrefix(err.Error(), prefix)) {
			return false
		}
	}
	return true
}
