package txmanager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// ReconcileBlocks is how many blocks one tick reads at most while the
// chain's nonce is ahead of the sender's next nonce (after a restore of
// Redis from a backup, or a use of the key outside xgr). Each block is one
// eth_getBlockByNumber with its transactions; the tick logs its progress.
const ReconcileBlocks = 200

// DefaultUnclaimedTTL is Config.UnclaimedTTL's default.
const DefaultUnclaimedTTL = time.Hour

// dropBatch is how many unclaimed transactions one tick forgets at most.
const dropBatch = 100

// ErrReconciling is returned by Submit for a new key while the chain's
// nonce is ahead of the sender's next nonce and the blocks that used those
// nonces are not read yet: a nonce reserved now could send again a call
// the chain already holds. The lease holder's tick reads them
// (ReconcileBlocks per tick); submit again.
var ErrReconciling = errors.New("txmanager: the sender is reconciling its nonces with the chain")

// unclaimed is the sender's unclaimed chain transactions by listing time
// (zset, member nonce, score ms); lua/lib/unclaimed.lua describes the
// three keys.
func (k keys) unclaimed() string { return k.tag + "unclaimed" }

// unclaimedTx holds each unclaimed transaction (hash, nonce → JSON
// unclaimedTx).
func (k keys) unclaimedTx() string { return k.tag + "unclaimedTx" }

// unclaimedBy indexes the unclaimed transactions by call (hash, call
// print → JSON array of nonces).
func (k keys) unclaimedBy() string { return k.tag + "unclaimedBy" }

// blockReader is what reconciling needs from the node besides Chain; an
// *ethclient.Client has it.
type blockReader interface {
	BlockByNumber(ctx context.Context, number *big.Int) (*types.Block, error)
}

// unclaimedTx is a transaction of the sender read from a block, as
// reconcile.lua lists it (all numbers decimal strings, bytes 0x hex, the
// address in lower case).
type unclaimedTx struct {
	Nonce     string `json:"nonce"`
	Hash      string `json:"hash"`
	Raw       string `json:"raw"`
	To        string `json:"to"`
	Value     string `json:"value"`
	Data      string `json:"data"`
	Gas       string `json:"gas"`
	Tip       string `json:"tip"`
	FeeCap    string `json:"feeCap"`
	GasPrice  string `json:"gasPrice"`
	Block     string `json:"block"`
	BlockHash string `json:"blockHash"`
	At        any    `json:"at,omitempty"`
}

// chainTx turns a transaction of the sender in block b into what
// reconcile.lua lists. ok is false for a contract creation (no execution
// sends one) and for a zero-value self-transfer without data (a gap fill).
func (m *Manager) chainTx(tx *types.Transaction, b *types.Block) (unclaimedTx, bool, error) {
	if tx.To() == nil || (*tx.To() == m.from && tx.Value().Sign() == 0 && len(tx.Data()) == 0) {
		return unclaimedTx{}, false, nil
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return unclaimedTx{}, false, fmt.Errorf("encode transaction %s: %w", tx.Hash().Hex(), err)
	}
	e := unclaimedTx{
		Nonce: strconv.FormatUint(tx.Nonce(), 10), Hash: tx.Hash().Hex(), Raw: hexutil.Encode(raw),
		To: strings.ToLower(tx.To().Hex()), Value: tx.Value().String(), Data: hexutil.Encode(tx.Data()),
		Gas: strconv.FormatUint(tx.Gas(), 10), Block: b.Number().String(), BlockHash: b.Hash().Hex(),
	}
	if tx.Type() == types.LegacyTxType || tx.Type() == types.AccessListTxType {
		e.GasPrice = tx.GasPrice().String()
	} else {
		e.Tip, e.FeeCap = tx.GasTipCap().String(), tx.GasFeeCap().String()
	}
	return e, true, nil
}

// reconcile is the tick's reconciliation with the chain (one call in
// Tick, after the chain's nonces are read): while the chain's nonce
// (mined) is ahead of the sender's next nonce, it reads the blocks after
// the last one read (field scanned; at most ReconcileBlocks per tick),
// lists the sender's transactions no record holds as unclaimed (Submit's
// new keys and the queued keys adopt those with their exact call), gives
// a live record whose nonce holds a transaction of its own call that
// transaction (its signature was lost), and raises next over the nonces
// read. Otherwise it marks the head as read. Unclaimed transactions
// listed more than UnclaimedTTL ago are forgotten with a warning: the
// key was used outside xgr. It returns the sender's next nonce.
func (m *Manager) reconcile(ctx context.Context, token string, head, mined, pending, next uint64, recs []live) (uint64, error) {
	pipe := m.cfg.Redis.Pipeline()
	st := pipe.HMGet(ctx, m.k.sender(), "scanned", "ahead")
	nUnclaimed, nQueued := pipe.ZCard(ctx, m.k.unclaimed()), pipe.ZCard(ctx, m.k.queue())
	if _, err := pipe.Exec(ctx); err != nil {
		return next, fmt.Errorf("txmanager: read the reconciled block: %w", err)
	}
	scanned, _ := st.Val()[0].(string)
	ahead, _ := st.Val()[1].(string)
	listed := nUnclaimed.Val()
	switch {
	case mined > next && scanned != "":
		var err error
		if next, err = m.readBlocks(ctx, token, scanned, head, pending, next, recs); err != nil {
			return next, err
		}
		if listed, err = m.cfg.Redis.ZCard(ctx, m.k.unclaimed()).Result(); err != nil {
			return next, fmt.Errorf("txmanager: count unclaimed transactions: %w", err)
		}
	case mined <= next && (scanned == "" || ahead != "" || m.behind(scanned, head)):
		// Every transaction of the sender up to head has a nonce below
		// next: a record's. The head counts as read.
		if _, err := scriptReconcile.Run(ctx, m.cfg.Redis, m.reconcileKeys(), token, scanned, strconv.FormatUint(head, 10),
			"0", strconv.FormatUint(pending, 10), "").Slice(); err != nil {
			return next, fmt.Errorf("txmanager: mark block %d read: %w", head, err)
		}
	}
	if listed == 0 {
		return next, nil
	}
	if nQueued.Val() > 0 {
		if err := m.adoptQueued(ctx, token); err != nil {
			return next, err
		}
	}
	return next, m.dropUnclaimed(ctx, token)
}

// catchUp is Submit's reconciliation when submit.lua found the sender
// unreconciled: it reads up to ReconcileBlocks blocks after the last one
// read, as the lease holder's tick would, without the lease (token "*",
// see reconcile.lua), so a replica's first execution after a restore or a
// use of the key outside xgr does not wait for the holder's tick.
func (m *Manager) catchUp(ctx context.Context) error {
	h, err := m.cfg.Chain.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("txmanager: read head: %w", err)
	}
	pending, err := m.cfg.Chain.PendingNonceAt(ctx, m.from)
	if err != nil {
		return fmt.Errorf("txmanager: read pending nonce of %s: %w", m.from.Hex(), err)
	}
	st, err := m.cfg.Redis.HMGet(ctx, m.k.sender(), "scanned", "next").Result()
	if err != nil {
		return fmt.Errorf("txmanager: read the reconciled block: %w", err)
	}
	scanned, _ := st[0].(string)
	ns, _ := st[1].(string)
	next, err := strconv.ParseUint(ns, 10, 64)
	if scanned == "" || err != nil {
		return nil
	}
	_, err = m.readBlocks(ctx, "*", scanned, h.Number.Uint64(), pending, next, nil)
	return err
}

// behind reports whether block head is after scanned.
func (m *Manager) behind(scanned string, head uint64) bool {
	s, err := strconv.ParseUint(scanned, 10, 64)
	return err != nil || s < head
}

func (m *Manager) reconcileKeys() []string {
	return []string{m.k.sender(), m.k.unclaimed(), m.k.unclaimedTx(), m.k.unclaimedBy()}
}

// readBlocks reads the blocks after scanned (at most ReconcileBlocks, up
// to head) and commits them with reconcile.lua.
func (m *Manager) readBlocks(ctx context.Context, token, scanned string, head, pending, next uint64, recs []live) (uint64, error) {
	from, err := strconv.ParseUint(scanned, 10, 64)
	if err != nil {
		return next, fmt.Errorf("txmanager: %s scanned %q: want a decimal block number", m.k.sender(), scanned)
	}
	if from >= head {
		return next, nil // the blocks that hold the nonces are not there yet
	}
	br, ok := m.cfg.Chain.(blockReader)
	if !ok {
		return next, fmt.Errorf("txmanager: the chain's nonce %d is ahead of the sender's next nonce %d and the chain client cannot read blocks (BlockByNumber) to find its transactions", pending, next)
	}
	to := min(head, from+ReconcileBlocks)
	var found []unclaimedTx
	var covered uint64
	for n := from + 1; n <= to; n++ {
		b, err := br.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return next, fmt.Errorf("txmanager: read block %d to reconcile the sender's nonces: %w", n, err)
		}
		for _, tx := range b.Transactions() {
			if s, err := types.Sender(m.signer, tx); err != nil || s != m.from {
				continue
			}
			covered = max(covered, tx.Nonce()+1)
			e, ok, err := m.chainTx(tx, b)
			if err != nil {
				return next, err
			}
			if ok {
				found = append(found, e)
			}
		}
	}
	args := []any{token, scanned, strconv.FormatUint(to, 10), strconv.FormatUint(covered, 10), strconv.FormatUint(pending, 10), ""}
	var held []unclaimedTx
	for _, e := range found {
		if n, _ := strconv.ParseUint(e.Nonce, 10, 64); n < next {
			held = append(held, e)
			continue
		}
		j, err := json.Marshal(e)
		if err != nil {
			return next, err
		}
		args = append(args, string(j))
	}
	res, err := scriptReconcile.Run(ctx, m.cfg.Redis, m.reconcileKeys(), args...).Slice()
	if err != nil {
		return next, fmt.Errorf("txmanager: reconcile blocks %d..%d: %w", from+1, to, err)
	}
	if res[0] == "stale" {
		return next, nil
	}
	newNext, err := strconv.ParseUint(fmt.Sprint(res[1]), 10, 64)
	if err != nil {
		return next, fmt.Errorf("txmanager: reconcile: next %v: %w", res[1], err)
	}
	m.cfg.Log.Info("txmanager: read the sender's transactions from the chain (its nonce is ahead of the manager's)",
		"sender", m.from.Hex(), "blocks", fmt.Sprintf("%d..%d", from+1, to), "head", head, "left", head-to,
		"listedUnclaimed", res[2], "next", newNext, "chainNonce", max(pending, covered))
	return newNext, m.claimHeld(ctx, token, head, held, recs)
}

// claimHeld gives a live record the transaction the chain holds under its
// nonce when that transaction is its own call (exactly: to, value, data)
// but none of its stored attempts: the signature, or a bump, made after
// the Redis state was saved. A reserved record takes it as its first
// signature (record.lua), a signed one as its newest attempt
// (attempt.lua); the tick then reads its receipt. Neither signs anything.
func (m *Manager) claimHeld(ctx context.Context, token string, head uint64, held []unclaimedTx, recs []live) error {
	if len(held) == 0 {
		return nil
	}
	byNonce := map[string]live{}
	for _, l := range recs {
		if l.rec.HasNonce && (l.rec.State == Reserved || l.rec.State == Signed) {
			byNonce[strconv.FormatUint(l.rec.Nonce, 10)] = l
		}
	}
	for _, e := range held {
		l, ok := byNonce[e.Nonce]
		if !ok || strings.ToLower(l.rec.To.Hex()) != e.To || l.rec.Value.String() != e.Value || hexutil.Encode(l.rec.Data) != e.Data {
			continue
		}
		ours := false
		for _, a := range l.attempts {
			ours = ours || common.HexToHash(a.Hash) == common.HexToHash(e.Hash)
		}
		if ours {
			continue
		}
		var err error
		if l.rec.State == Reserved {
			err = scriptRecord.Run(ctx, m.cfg.Redis, []string{m.k.record(l.rec.Key), m.k.attempts(l.rec.Key)},
				e.Nonce, e.Hash, e.Raw, e.Tip, e.FeeCap, e.GasPrice, e.Block, "").Err()
		} else {
			err = scriptAttempt.Run(ctx, m.cfg.Redis, []string{m.k.sender(), m.k.record(l.rec.Key), m.k.attempts(l.rec.Key)},
				token, strconv.Itoa(l.rec.Attempts), e.Nonce, e.Hash, e.Raw, e.Tip, e.FeeCap, e.GasPrice,
				strconv.FormatUint(head, 10), "").Err()
		}
		if err != nil {
			return fmt.Errorf("txmanager: give %q the transaction %s of its nonce %s: %w", l.rec.Key, e.Hash, e.Nonce, err)
		}
		m.cfg.Log.Warn("txmanager: a record's nonce holds its own call, signed by a replica whose record was lost; adopted",
			"key", l.rec.Key, "nonce", e.Nonce, "tx", e.Hash, "block", e.Block)
	}
	return nil
}

// adoptQueued lets the keys at the queue's head (as many as a promotion
// may take) adopt unclaimed transactions of their exact call before they
// are given nonces.
func (m *Manager) adoptQueued(ctx context.Context, token string) error {
	head, err := m.cfg.Redis.ZRange(ctx, m.k.queue(), 0, int64(m.cfg.MaxInFlight)-1).Result()
	if err != nil || len(head) == 0 {
		return err
	}
	keys := []string{m.k.sender(), m.k.queue(), m.k.included(), m.k.unclaimed(), m.k.unclaimedTx(), m.k.unclaimedBy()}
	args := []any{token, ""}
	for _, k := range head {
		keys = append(keys, m.k.record(k), m.k.attempts(k))
		args = append(args, k)
	}
	res, err := scriptAdoptQueued.Run(ctx, m.cfg.Redis, keys, args...).StringSlice()
	if err != nil {
		return fmt.Errorf("txmanager: adopt queued keys: %w", err)
	}
	for i := 0; i+1 < len(res); i += 2 {
		m.cfg.Log.Info("txmanager: a queued execution adopted the chain's transaction of its call (sent before Redis lost its record)",
			"key", res[i], "nonce", res[i+1], "sender", m.from.Hex())
	}
	return nil
}

// dropUnclaimed forgets the unclaimed transactions listed more than
// UnclaimedTTL ago, each with a warning: no execution claimed it, so the
// key was used outside xgr (or the execution that sent it did not come
// back after a restore).
func (m *Manager) dropUnclaimed(ctx context.Context, token string) error {
	before := time.Now().Add(-m.cfg.UnclaimedTTL).UnixMilli()
	res, err := scriptDropUnclaimed.Run(ctx, m.cfg.Redis, m.reconcileKeys(), token, before, dropBatch, "").StringSlice()
	if err != nil {
		return fmt.Errorf("txmanager: drop unclaimed transactions: %w", err)
	}
	for _, s := range res {
		var e unclaimedTx
		if err := json.Unmarshal([]byte(s), &e); err != nil {
			return fmt.Errorf("txmanager: unclaimed transaction %q: %w", s, err)
		}
		m.cfg.Log.Warn("txmanager: the chain is ahead of the sender's next nonce (its key was used outside xgr): a transaction of the key that no execution claimed",
			"sender", m.from.Hex(), "nonce", e.Nonce, "tx", e.Hash, "to", e.To, "value", e.Value, "block", e.Block,
			"unclaimedFor", m.cfg.UnclaimedTTL)
	}
	return nil
}
