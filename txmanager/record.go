package txmanager

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/redis/go-redis/v9"
)

// State is where an execution is in its lifecycle.
type State string

// The states, in lifecycle order. A reorg moves an included key back to
// signed; only a reorg deeper than the configured finality moves a final
// key back (to signed, with the same bytes: finality.go), and a final
// foreign transaction on a signed key's nonce moves it back to reserved
// under a new nonce.
const (
	// Queued: accepted, waiting for a nonce (the sender had MaxInFlight
	// unmined transactions).
	Queued State = "queued"
	// Reserved: the key holds its nonce; its transaction is not signed yet
	// (a replica that stops here leaves it to the lease holder, which signs
	// it with the same nonce).
	Reserved State = "reserved"
	// Signed: the signed bytes are stored and are (re-)broadcast until a
	// block holds one of the key's attempts.
	Signed State = "signed"
	// Included: a block holds one of the key's attempts; not final yet.
	Included State = "included"
	// Final: the receipt is final (outcome success or reverted), the
	// nonce was used by another transaction (outcome lost), or the node
	// refused the transaction for good (outcome failed).
	Final State = "final"
)

// Outcome is how a final execution ended.
type Outcome string

// The outcomes of a final execution.
const (
	Success  Outcome = "success"
	Reverted Outcome = "reverted"
	// Lost: a gap filler's nonce was used, in a final block, by a
	// transaction that is none of its attempts (the gap is closed). An
	// execution in that place is signed again under a new nonce instead.
	Lost Outcome = "lost"
	// Failed: the node refused the key's transaction for good (see
	// PermanentReason) and held none of its attempts; Error carries the
	// node's reason. The key is not signed again; its nonce is filled.
	Failed Outcome = "failed"
)

// Record is one execution as Redis holds it (the hash
// xgr:txm:{T}:x:<key>; field names in parentheses).
type Record struct {
	Key  string // key: the idempotency key
	Kind string // kind: "exec" (submitted) or "fill" (a gap filler)
	State
	Outcome  Outcome        // outcome, when final
	Nonce    uint64         // nonce, from reserved on (HasNonce)
	HasNonce bool           //
	To       common.Address // to
	Data     []byte         // data (0x hex)
	Value    *big.Int       // value (wei, decimal)
	GasLimit uint64         // gas

	TxHash       common.Hash // hash: the current attempt, or the mined one once included
	Raw          []byte      // raw: the signed bytes of TxHash (0x hex)
	Attempts     int         // attempts: how many were signed (each is in the attempts list)
	TipCap       *big.Int    // tip: of the current attempt (EIP-1559)
	FeeCap       *big.Int    // feeCap: of the current attempt (EIP-1559)
	GasPrice     *big.Int    // gasPrice: of the current attempt (legacy; nil for EIP-1559)
	AttemptBlock uint64      // attemptBlock: the chain head when the current attempt was signed

	Block             uint64      // block: the block holding TxHash (included, final)
	BlockHash         common.Hash // blockHash
	GasUsed           uint64      // gasUsed
	ReceiptStatus     uint64      // status: 1 success, 0 reverted
	EffectiveGasPrice *big.Int    // effectiveGasPrice
	Reorgs            int         // reorgs: how often a reorg dropped the receipt
	Violations        int         // violations: how often a reorg past finality took the key's final transaction (it was sent again)
	Resigned          int         // resigned: how often a final foreign transaction took the key's nonce (it was signed again under a new one)
	VoidNonces        string      // voidNonces: those nonces, "<nonce>@<final block> " each; their attempts are in o:<key>, never sent again
	Error             string      // error: why an execution was lost or failed

	CreatedAt, ReservedAt, SignedAt, IncludedAt, FinalAt time.Time // createdAt, reservedAt, signedAt, includedAt, finalAt (unix ms)

	// Learned is set by Observe on a record it made final from the chain
	// while the lease holder was silent; Redis does not hold it yet.
	Learned bool
}

// Done reports whether the execution is final.
func (r Record) Done() bool { return r.State == Final }

// parseRecord reads a record hash. A malformed field is an error naming it.
func parseRecord(h map[string]string) (Record, error) {
	r := Record{Key: h["key"], Kind: h["kind"], State: State(h["state"]), Outcome: Outcome(h["outcome"]), Error: h["error"]}
	var errs []error
	u64 := func(f string) uint64 {
		s := h[f]
		if s == "" {
			return 0
		}
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("field %s %q: want a decimal integer", f, s))
		}
		return v
	}
	bigf := func(f string) *big.Int {
		s := h[f]
		if s == "" {
			return nil
		}
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			errs = append(errs, fmt.Errorf("field %s %q: want a decimal integer", f, s))
		}
		return v
	}
	bytesf := func(f string) []byte {
		s := h[f]
		if s == "" {
			return nil
		}
		v, err := hexutil.Decode(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("field %s: want 0x hex: %v", f, err))
		}
		return v
	}
	at := func(f string) time.Time {
		if ms := u64(f); ms > 0 {
			return time.UnixMilli(int64(ms))
		}
		return time.Time{}
	}
	if h["nonce"] != "" {
		r.Nonce, r.HasNonce = u64("nonce"), true
	}
	if s := h["to"]; s != "" {
		if !common.IsHexAddress(s) {
			errs = append(errs, fmt.Errorf("field to %q: want a 0x address", s))
		}
		r.To = common.HexToAddress(s)
	}
	r.Data, r.Value, r.GasLimit = bytesf("data"), bigf("value"), u64("gas")
	if r.Value == nil {
		r.Value = new(big.Int)
	}
	r.TxHash, r.Raw, r.Attempts = common.HexToHash(h["hash"]), bytesf("raw"), int(u64("attempts"))
	r.TipCap, r.FeeCap, r.GasPrice, r.AttemptBlock = bigf("tip"), bigf("feeCap"), bigf("gasPrice"), u64("attemptBlock")
	r.Block, r.BlockHash, r.GasUsed = u64("block"), common.HexToHash(h["blockHash"]), u64("gasUsed")
	r.ReceiptStatus, r.EffectiveGasPrice, r.Reorgs = u64("status"), bigf("effectiveGasPrice"), int(u64("reorgs"))
	r.Violations, r.Resigned, r.VoidNonces = int(u64("violations")), int(u64("resigned")), h["voidNonces"]
	r.CreatedAt, r.ReservedAt, r.SignedAt = at("createdAt"), at("reservedAt"), at("signedAt")
	r.IncludedAt, r.FinalAt = at("includedAt"), at("finalAt")
	if len(errs) > 0 {
		return r, fmt.Errorf("record %q: %w", r.Key, errs[0])
	}
	return r, nil
}

// pairs turns a flat HGETALL-style reply into a map.
func pairs(flat []any) map[string]string {
	m := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		v, _ := flat[i+1].(string)
		m[k] = v
	}
	return m
}

// attempt is one entry of a key's attempts list.
type attempt struct {
	N        int    `json:"n"`
	Hash     string `json:"hash"`
	Raw      string `json:"raw"`
	Tip      string `json:"tip"`
	FeeCap   string `json:"feeCap"`
	GasPrice string `json:"gasPrice"`
	Block    string `json:"block"`
	At       string `json:"at"`
}

type (
	redisMap  = redis.MapStringStringCmd
	redisList = redis.StringSliceCmd
)
