package txmanager

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// The reasons a node refuses a transaction for good: the values of the
// reason label of xgr_txm_permanent_failures_total (a closed set).
const (
	// ReasonIntrinsicGas: the gas limit is below the transaction's
	// intrinsic gas (21000 plus calldata, EIP-2028) or its calldata floor
	// (EIP-7623).
	ReasonIntrinsicGas = "intrinsic_gas"
	// ReasonFunds: the sender cannot pay value + gas limit × fee cap.
	ReasonFunds = "insufficient_funds"
	// ReasonOversized: the signed transaction is larger than the node's
	// pool takes (geth: 128 KiB).
	ReasonOversized = "oversized"
	// ReasonGasLimit: the gas limit is above the block's (or the
	// protocol's per-transaction) gas limit.
	ReasonGasLimit = "gas_limit"
	// ReasonFeeCap: the fee cap is below the base fee and MaxFeePerGas
	// leaves no room for a bump.
	ReasonFeeCap = "fee_cap"
	// ReasonTxFeeCap: gas limit × fee cap is above the node's own cap on a
	// transaction's fee (geth --rpc.txfeecap).
	ReasonTxFeeCap = "tx_fee_cap"
	// ReasonDropped: the node answered the broadcast without an error but
	// did not keep the transaction, DropLimit times in a row.
	ReasonDropped = "dropped"
)

// PermanentReasons are the reason label's values, each shown at 0 from
// start-up.
var PermanentReasons = []string{ReasonIntrinsicGas, ReasonFunds, ReasonOversized, ReasonGasLimit, ReasonFeeCap, ReasonTxFeeCap, ReasonDropped}

// DropLimit is how many broadcasts in a row a node may accept and then not
// hold (no pool entry, nonce not mined) before the key fails as dropped.
const DropLimit = 3

// permanentErrors maps what nodes answer eth_sendRawTransaction with to a
// reason, by a case-insensitive substring: go-ethereum (core and
// core/txpool error values, and its RPC fee cap) and anvil (its own
// strings). Every other error is transient: the tick sends the bytes again.
var permanentErrors = []struct{ substr, reason string }{
	{"intrinsic gas too low", ReasonIntrinsicGas},                    // geth core.ErrIntrinsicGas; anvil
	{"insufficient gas for floor data gas cost", ReasonIntrinsicGas}, // geth core.ErrFloorDataGas (EIP-7623)
	{"insufficient funds", ReasonFunds},                              // geth core.ErrInsufficientFunds(ForTransfer); anvil "Insufficient funds for gas * price + value"
	{"would cause overdraft", ReasonFunds},                           // geth txpool.ErrOverdraft
	{"oversized data", ReasonOversized},                              // geth txpool.ErrOversizedData
	{"transaction too large", ReasonOversized},                       // other clients
	{"tx too large", ReasonOversized},                                //
	{"request entity too large", ReasonOversized},                    // HTTP 413 from the node's RPC server
	{"exceeds block gas limit", ReasonGasLimit},                      // geth txpool.ErrGasLimit
	{"transaction gas limit too high", ReasonGasLimit},               // geth core.ErrGasLimitTooHigh (EIP-7825)
	{"intrinsic gas too high", ReasonGasLimit},                       // anvil "intrinsic gas too high -- tx.gas_limit > env.block.gas_limit"
	{"max fee per gas less than block base fee", ReasonFeeCap},       // geth core.ErrFeeCapTooLow; anvil
	{"exceeds the configured cap", ReasonTxFeeCap},                   // geth "tx fee (… ether) exceeds the configured cap (… ether)"
}

// PermanentReason classifies a broadcast error (pure): the reason (one of
// the Reason constants) when the node refuses the transaction for good, ""
// when sending the same bytes again may succeed (node trouble, a full
// pool, a nonce gap, an underpriced replacement). ReasonFeeCap is final
// only when no bump can raise the fee cap above the base fee; the tick
// decides that.
func PermanentReason(err error) string {
	if err == nil {
		return ""
	}
	msg := strings.ToLower(err.Error())
	for _, p := range permanentErrors {
		if strings.Contains(msg, p.substr) {
			return p.reason
		}
	}
	return ""
}

// refusal is a permanent refusal of one attempt of a key, as this replica's
// broadcast saw it.
type refusal struct {
	hash   common.Hash
	reason string
	err    string
}

// noteSend keeps what a broadcast of key's attempt hash answered: a
// permanent refusal is remembered for the tick (refused); a transient error
// or a success forgets an earlier one.
func (m *Manager) noteSend(key string, hash common.Hash, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if reason := PermanentReason(err); reason != "" {
		m.refused[key] = refusal{hash: hash, reason: reason, err: err.Error()}
		return
	}
	delete(m.refused, key)
}

// refusedNow is the permanent refusal of rec's current attempt this
// replica saw, if any.
func (m *Manager) refusedNow(rec Record) (refusal, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.refused[rec.Key]
	return r, ok && r.hash == rec.TxHash
}

// txLookup is what a node answers eth_getTransactionByHash with
// (*ethclient.Client has it).
type txLookup interface {
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
}

// nodeHoldsNone reports whether the node holds none of l's attempts (not
// in its pool, not mined): only then may the key fail and its nonce be
// filled without one of its attempts being mined later. A chain client
// that cannot look transactions up holds, for this purpose, everything
// but a single refused attempt.
func (m *Manager) nodeHoldsNone(ctx context.Context, l live, refusedHash common.Hash) (bool, error) {
	look, ok := m.cfg.Chain.(txLookup)
	if !ok {
		return len(l.attempts) == 1 && common.HexToHash(l.attempts[0].Hash) == refusedHash, nil
	}
	for _, a := range l.attempts {
		h := common.HexToHash(a.Hash)
		_, _, err := look.TransactionByHash(ctx, h)
		switch {
		case err == nil:
			return false, nil
		case !errors.Is(err, ethereum.NotFound):
			return false, fmt.Errorf("look up attempt %s of %q: %w", h.Hex(), l.rec.Key, err)
		}
	}
	return true, nil
}

// noteDropped counts, per key, the accepted broadcasts after which the
// node did not hold the key's current attempt (bumps included: a dropped
// replacement is dropped as well); it returns the count after this one,
// 0 when the node holds the attempt (which resets the count).
func (m *Manager) noteDropped(rec Record, held bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held {
		delete(m.drops, rec.Key)
		return 0
	}
	m.drops[rec.Key]++
	return m.drops[rec.Key]
}

// failTransition is the fenced transition that ends rec failed with the
// node's reason (fail.lua); freed is called with rec's nonce when it did,
// so that the tick fills the nonce in the same round.
func (m *Manager) failTransition(token string, rec Record, reason, nodeErr string, rep *TickReport, freed func(uint64)) transition {
	msg := fmt.Sprintf("the node refused the transaction for good (%s): %s; nothing was executed, nonce %d is filled by a zero-value self-transfer and the key is not signed again",
		reason, nodeErr, rec.Nonce)
	return transition{script: scriptFail,
		keys: []string{m.k.sender(), m.k.record(rec.Key), m.k.attempts(rec.Key), m.k.pending()},
		args: []any{token, rec.Key, strconv.FormatUint(rec.Nonce, 10), strconv.Itoa(rec.Attempts), msg, m.ttlSeconds(), ""},
		then: func(res string) {
			if res != "failed" {
				return
			}
			m.forget(rec.Key)
			rep.Failed++
			freed(rec.Nonce)
			m.cfg.Metrics.final(m.labels, Failed, time.Since(rec.CreatedAt))
			m.cfg.Metrics.permanentFailure(m.labels, reason)
			m.cfg.Log.Error("txmanager: the node refused an execution for good; it failed and its nonce is filled",
				"key", rec.Key, "nonce", rec.Nonce, "tx", rec.TxHash.Hex(), "reason", reason, "err", nodeErr, "sender", m.from.Hex())
		}}
}
