package chain

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// dataError is what go-ethereum's RPC client returns for a JSON-RPC error
// with a data member.
type dataError struct {
	msg  string
	data any
}

func (e dataError) Error() string  { return e.msg }
func (e dataError) ErrorData() any { return e.data }

func errorString(s string) []byte {
	typ, _ := abi.NewType("string", "", nil)
	packed, err := abi.Arguments{{Type: typ}}.Pack(s)
	if err != nil {
		panic(err)
	}
	return append([]byte{0x08, 0xc3, 0x79, 0xa0}, packed...)
}

func TestAsRevert(t *testing.T) {
	reason := "XRC729: not owner"
	cases := []struct {
		name   string
		err    error
		revert bool
		reason string
	}{
		{"Error(string) data", dataError{"execution reverted: " + reason, hexutil.Encode(errorString(reason))}, true, reason},
		{"wrapped data error", fmt.Errorf("send: %w", dataError{"execution reverted", hexutil.Encode(errorString(reason))}), true, reason},
		{"message only", errors.New("execution reverted: " + reason), true, reason},
		{"no reason", dataError{"execution reverted", "0x"}, true, ""},
		{"panic code", dataError{"execution reverted", "0x4e487b710000000000000000000000000000000000000000000000000000000000000011"}, true, "arithmetic underflow or overflow"},
		{"not a revert", errors.New("connection refused"), false, ""},
		{"nil", nil, false, ""},
	}
	for _, c := range cases {
		re, ok := AsRevert("setOSTC", c.err)
		if ok != c.revert {
			t.Errorf("%s: revert=%v, want %v", c.name, ok, c.revert)
			continue
		}
		if !ok {
			continue
		}
		if re.Reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.name, re.Reason, c.reason)
		}
		if re.Op != "setOSTC" || !errors.Is(re, c.err) {
			t.Errorf("%s: op %q, wraps node error %v", c.name, re.Op, errors.Is(re, c.err))
		}
	}
	if got := (&RevertError{Op: "setOSTC", Reason: reason}).Error(); got != `setOSTC reverted: "XRC729: not owner"` {
		t.Errorf("Error() = %s", got)
	}
	if ReasonOf(fmt.Errorf("outer: %w", &RevertError{Op: "x", Reason: "r"})) != "r" {
		t.Error("ReasonOf does not see a wrapped RevertError")
	}
}
