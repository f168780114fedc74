package txmanager

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
)

// MaxKeyLen bounds an idempotency key.
const MaxKeyLen = 256

// Request is one execution: a call from the manager's sender.
type Request struct {
	// Key is the idempotency key: one key is sent on chain at most once,
	// under one nonce, however often it is submitted. An execution's key
	// is its process: "<owner>/<session>/<pid>". Keys starting with "fill:"
	// are the manager's own.
	Key string
	// To is the called contract (or account); required.
	To common.Address
	// Data is the calldata.
	Data []byte
	// Value is the wei sent along; nil is 0.
	Value *big.Int
	// GasLimit is the transaction's gas limit; 0 asks the node for an
	// estimate (plus 20%) at submission, and a call that would revert is
	// refused then, with nothing stored.
	GasLimit uint64
}

// check validates a request before anything is stored (pure).
func (r Request) check(maxGas uint64) error {
	switch {
	case r.Key == "":
		return fmt.Errorf("request: key is empty; want the execution's idempotency key (owner/session/pid)")
	case len(r.Key) > MaxKeyLen:
		return fmt.Errorf("request %q: key is %d bytes; at most %d are allowed", r.Key[:32]+"…", len(r.Key), MaxKeyLen)
	case strings.HasPrefix(r.Key, "fill:"):
		return fmt.Errorf("request %q: keys starting with fill: are reserved for the manager's gap fills", r.Key)
	case strings.IndexFunc(r.Key, func(c rune) bool { return unicode.IsSpace(c) || !unicode.IsPrint(c) }) >= 0:
		return fmt.Errorf("request %q: key has a space or control character; use printable characters only", r.Key)
	case r.To == (common.Address{}):
		return fmt.Errorf("request %q: to is the zero address; want the called contract", r.Key)
	case r.Value != nil && r.Value.Sign() < 0:
		return fmt.Errorf("request %q: value %s is negative", r.Key, r.Value)
	case maxGas > 0 && r.GasLimit > maxGas:
		return fmt.Errorf("request %q: gas limit %d is above the cap %d (MaxGasLimit)", r.Key, r.GasLimit, maxGas)
	}
	return nil
}
