package txmanager

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/internal/failpoint"
)

// GasMarginPercent is added to the node's gas estimate when a request has
// no gas limit.
const GasMarginPercent = 20

// ErrNotFound is returned by Status for a key the manager does not hold.
var ErrNotFound = errors.New("txmanager: no execution with this key")

// errCrashed ends a call that a test's crash hook stopped.
var errCrashed = errors.New("txmanager: stopped by the crash hook")

// Manager sends executions for one sender on one chain. Any number of
// replicas may run a Manager for the same sender and Redis: Submit is safe
// on all of them at once; the tick runs on the one that holds the sender's
// lease.
type Manager struct {
	cfg     Config
	chainID *big.Int
	from    common.Address
	signer  types.Signer
	k       keys
	policy  FeePolicy
	labels  []string
	synced  atomic.Bool // firstSync ran

	mu      sync.Mutex
	market  Market
	head    uint64
	priced  time.Time
	sent    map[string]time.Time    // last broadcast of each key by this replica
	suspect map[string]suspicion    // keys that looked lost
	unmined map[string]unminedSince // when this replica first saw each attempt unmined
	refused map[string]refusal      // permanent refusals of keys' current attempts this replica saw
	drops   map[string]int          // broadcasts in a row of each key the node accepted and did not keep
	token   string                  // the sender's lease token while held
	tickMu  sync.Mutex              // one tick at a time
}

// New returns a manager for cfg.Key on cfg.Chain. It reads the chain id
// from the node when cfg.ChainID is nil.
func New(ctx context.Context, cfg Config) (*Manager, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	id := cfg.ChainID
	if id == nil {
		if id, err = cfg.Chain.ChainID(ctx); err != nil {
			return nil, fmt.Errorf("txmanager: read chain id: %w", err)
		}
	}
	if cfg.ID == "" {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		cfg.ID = hex.EncodeToString(b)
		if cfg.Replica != "" {
			cfg.ID = cfg.Replica + "/" + cfg.ID
		}
	}
	from := crypto.PubkeyToAddress(cfg.Key.PublicKey)
	m := &Manager{
		cfg: cfg, chainID: new(big.Int).Set(id), from: from, signer: types.LatestSignerForChainID(id),
		k: newKeys(id, from), policy: FeePolicy{MaxFeePerGas: cfg.MaxFeePerGas, BumpPercent: cfg.BumpPercent},
		labels: []string{id.String(), strings.ToLower(from.Hex())},
		sent:   map[string]time.Time{}, suspect: map[string]suspicion{}, unmined: map[string]unminedSince{},
		refused: map[string]refusal{}, drops: map[string]int{},
	}
	cfg.Metrics.init(m.labels)
	return m, nil
}

// Sender is the account that signs and pays.
func (m *Manager) Sender() common.Address { return m.from }

// crashed asks the test hook whether to stop at stage. In a binary built
// for the chaos suite (tag xgrfailpoint) the point "txmanager.<stage>" may
// kill the process here instead.
func (m *Manager) crashed(stage, key string) bool {
	failpoint.Hit("txmanager." + stage)
	return m.cfg.crash != nil && m.cfg.crash(stage, key)
}

// sign builds and signs rec's transaction with rec.Nonce and fees.
func (m *Manager) sign(rec Record, fees Fees) (*types.Transaction, []byte, error) {
	to := rec.To
	var inner types.TxData
	if fees.Legacy() {
		inner = &types.LegacyTx{Nonce: rec.Nonce, GasPrice: fees.GasPrice, Gas: rec.GasLimit, To: &to, Value: rec.Value, Data: rec.Data}
	} else {
		inner = &types.DynamicFeeTx{ChainID: m.chainID, Nonce: rec.Nonce, GasTipCap: fees.TipCap, GasFeeCap: fees.FeeCap,
			Gas: rec.GasLimit, To: &to, Value: rec.Value, Data: rec.Data}
	}
	tx, err := types.SignNewTx(m.cfg.Key, m.signer, inner)
	if err != nil {
		return nil, nil, err
	}
	raw, err := tx.MarshalBinary()
	return tx, raw, err
}

// broadcast sends stored bytes and reports whether the node answered
// without an error (benign is true for an error that means the node has
// the transaction or its nonce). Other errors are logged and counted, and
// the tick sends again; a permanent one (PermanentReason) is kept for the
// tick, which fails the key when the node holds none of its attempts.
func (m *Manager) broadcast(ctx context.Context, key string, raw []byte) (accepted, benign bool) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		m.cfg.Log.Error("txmanager: stored bytes do not decode", "key", key, "err", err)
		return false, false
	}
	m.mu.Lock()
	m.sent[key] = time.Now()
	m.mu.Unlock()
	err := m.cfg.Chain.SendTransaction(ctx, tx)
	m.noteSend(key, tx.Hash(), err)
	if err != nil && !benignSendError(err) {
		m.cfg.Metrics.broadcastError(m.labels)
		m.cfg.Log.Warn("txmanager: broadcast failed; the tick sends it again", "key", key, "tx", tx.Hash().Hex(), "nonce", tx.Nonce(), "err", err)
		return false, false
	}
	return err == nil, err != nil
}

// currentMarket returns the fee market, read again when older than
// MarketMaxAge, and the head it was read at.
func (m *Manager) currentMarket(ctx context.Context) (Market, uint64, error) {
	m.mu.Lock()
	if time.Since(m.priced) < m.cfg.MarketMaxAge {
		mk, head := m.market, m.head
		m.mu.Unlock()
		return mk, head, nil
	}
	m.mu.Unlock()
	h, err := m.cfg.Chain.HeaderByNumber(ctx, nil)
	if err != nil {
		return Market{}, 0, fmt.Errorf("read head: %w", err)
	}
	return m.readMarket(ctx, h)
}

// readMarket reads the tip (or legacy gas price) for head h and keeps it.
func (m *Manager) readMarket(ctx context.Context, h *types.Header) (Market, uint64, error) {
	mk := Market{BaseFee: h.BaseFee}
	var err error
	if h.BaseFee != nil {
		mk.Tip, err = m.cfg.Chain.SuggestGasTipCap(ctx)
	} else {
		mk.GasPrice, err = m.cfg.Chain.SuggestGasPrice(ctx)
	}
	if err != nil {
		return Market{}, 0, fmt.Errorf("read fee suggestion: %w", err)
	}
	m.mu.Lock()
	m.market, m.head, m.priced = mk, h.Number.Uint64(), time.Now()
	m.mu.Unlock()
	return mk, h.Number.Uint64(), nil
}

// NextFees are the fees a first attempt signed now would carry: the fee
// market (read again when older than MarketMaxAge) priced by InitialFees
// within MaxFeePerGas. A preflight prices a call's cost with them.
func (m *Manager) NextFees(ctx context.Context) (Fees, error) {
	mk, _, err := m.currentMarket(ctx)
	if err != nil {
		return Fees{}, fmt.Errorf("txmanager: price: %w", err)
	}
	return InitialFees(m.policy, mk), nil
}

// syncNonce sets the sender's next nonce to the chain's pending nonce when
// it was never set (see sync_nonce.lua).
func (m *Manager) syncNonce(ctx context.Context, token string) error {
	n, err := m.cfg.Chain.PendingNonceAt(ctx, m.from)
	if err != nil {
		return fmt.Errorf("read pending nonce of %s: %w", m.from.Hex(), err)
	}
	return scriptSyncNonce.Run(ctx, m.cfg.Redis, []string{m.k.sender()}, strconv.FormatUint(n, 10), token, "").Err()
}

// firstSync raises the sender's next nonce to the chain's pending nonce
// once per Manager, before its first reservation: a replica that starts
// after the key was used outside xgr (or after a Redis restore) must not
// reserve a nonce the chain has used before the lease holder's next tick
// notices. Later drift is the tick's (raiseNonce).
func (m *Manager) firstSync(ctx context.Context) error {
	if m.synced.Load() {
		return nil
	}
	n, err := m.cfg.Chain.PendingNonceAt(ctx, m.from)
	if err != nil {
		return fmt.Errorf("txmanager: read pending nonce of %s: %w", m.from.Hex(), err)
	}
	if _, err := m.raiseNonce(ctx, "*", n); err != nil {
		return err
	}
	m.synced.Store(true)
	return nil
}

// raiseNonce raises the sender's next nonce to the chain's pending nonce
// (the lease holder with its token, or "*" for a replica's first
// reservation) and returns the next nonce now.
func (m *Manager) raiseNonce(ctx context.Context, token string, pending uint64) (uint64, error) {
	res, err := scriptSyncNonce.Run(ctx, m.cfg.Redis, []string{m.k.sender()}, strconv.FormatUint(pending, 10), token, "").StringSlice()
	if err != nil {
		return 0, fmt.Errorf("txmanager: sync nonce: %w", err)
	}
	if res[1] == "raised" {
		m.cfg.Log.Warn("txmanager: the chain is ahead of the sender's next nonce (its key was used outside xgr, or Redis was restored); moving on",
			"sender", m.from.Hex(), "next", res[0])
	}
	return strconv.ParseUint(res[0], 10, 64)
}

// Status reads a key's record (ErrNotFound when there is none).
func (m *Manager) Status(ctx context.Context, key string) (Record, error) {
	h, err := m.cfg.Redis.HGetAll(ctx, m.k.record(key)).Result()
	if err != nil {
		return Record{}, fmt.Errorf("txmanager: read %q: %w", key, err)
	}
	if len(h) == 0 {
		return Record{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return parseRecord(h)
}

// Wait reads a key's record every Poll until it is final or ctx ends.
func (m *Manager) Wait(ctx context.Context, key string) (Record, error) {
	for {
		rec, err := m.Status(ctx, key)
		if err != nil || rec.Done() {
			return rec, err
		}
		select {
		case <-ctx.Done():
			return rec, fmt.Errorf("txmanager: %q is %s: %w", key, rec.State, ctx.Err())
		case <-time.After(m.cfg.Poll):
		}
	}
}

func bigStr(v *big.Int) string {
	if v == nil {
		return ""
	}
	return v.String()
}
