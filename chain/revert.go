package chain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// RevertError is a call, gas estimate or transaction that the EVM reverted.
// Reason is the contract's message (from Error(string), or a Panic code in
// words) when it gave one.
type RevertError struct {
	// Op says what reverted, e.g. "setOSTC" or "transaction 0xab…".
	Op     string
	Reason string
	// Data is the raw revert data (nil when the node did not return it).
	Data []byte
	// Err is the node's error, if the revert was reported as one.
	Err error
}

func (e *RevertError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%s reverted: %q", e.Op, e.Reason)
	}
	if len(e.Data) > 0 {
		return fmt.Sprintf("%s reverted with data %s", e.Op, hexutil.Encode(e.Data))
	}
	return e.Op + " reverted without a reason"
}

func (e *RevertError) Unwrap() error { return e.Err }

// AsRevert reports whether err is a revert and returns it as *RevertError.
// It recognises RevertErrors and node errors carrying revert data or saying
// "execution reverted"; op names the operation in the returned error.
func AsRevert(op string, err error) (*RevertError, bool) {
	if err == nil {
		return nil, false
	}
	var re *RevertError
	if errors.As(err, &re) {
		return re, true
	}
	out := &RevertError{Op: op, Err: err}
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			if b, decErr := hexutil.Decode(s); decErr == nil {
				out.Data = b
			}
		}
	}
	if len(out.Data) >= 4 {
		if reason, err := abi.UnpackRevert(out.Data); err == nil {
			out.Reason = reason
		}
		return out, true
	}
	msg := err.Error()
	if i := strings.Index(msg, "execution reverted"); i >= 0 {
		out.Reason = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg[i:], "execution reverted"), ":"))
		return out, true
	}
	return nil, false
}

// ReasonOf returns the revert reason carried by err, or "" when err is no
// revert or one without a reason.
func ReasonOf(err error) string {
	if re, ok := AsRevert("", err); ok {
		return re.Reason
	}
	return ""
}
