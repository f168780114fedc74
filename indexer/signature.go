package indexer

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// ParseEvent reads an event signature as a Solidity author writes it,
// "OrderPlaced(address indexed owner, uint256 amount, string ref)", into an
// ABI event (whose ID is topic0). Every argument needs a name, so triggers
// can refer to it; tuples are not supported.
func ParseEvent(sig string) (abi.Event, error) {
	sig = strings.TrimSpace(sig)
	open := strings.IndexByte(sig, '(')
	if open <= 0 || !strings.HasSuffix(sig, ")") {
		return abi.Event{}, fmt.Errorf("event %q: want Name(type [indexed] name, ...)", sig)
	}
	name := strings.TrimSpace(sig[:open])
	if !isIdent(name) {
		return abi.Event{}, fmt.Errorf("event %q: %q is not an identifier", sig, name)
	}
	body := strings.TrimSpace(sig[open+1 : len(sig)-1])
	if strings.ContainsAny(body, "()") {
		return abi.Event{}, fmt.Errorf("event %q: tuple arguments are not supported", sig)
	}
	var args abi.Arguments
	seen := map[string]bool{}
	if body != "" {
		for i, part := range strings.Split(body, ",") {
			f := strings.Fields(part)
			indexed := false
			if len(f) == 3 && f[1] == "indexed" {
				indexed, f = true, []string{f[0], f[2]}
			}
			if len(f) != 2 {
				return abi.Event{}, fmt.Errorf("event %q: argument %d %q: want \"type [indexed] name\"", sig, i+1, strings.TrimSpace(part))
			}
			typ, err := abi.NewType(f[0], "", nil)
			if err == nil {
				err = checkSize(typ)
			}
			if err != nil {
				return abi.Event{}, fmt.Errorf("event %q: argument %d: type %q: %v", sig, i+1, f[0], err)
			}
			if !isIdent(f[1]) || seen[f[1]] {
				return abi.Event{}, fmt.Errorf("event %q: argument %d: name %q is not a new identifier", sig, i+1, f[1])
			}
			seen[f[1]] = true
			args = append(args, abi.Argument{Name: f[1], Type: typ, Indexed: indexed})
		}
	}
	indexed := 0
	for _, a := range args {
		if a.Indexed {
			indexed++
		}
	}
	if indexed > 3 {
		return abi.Event{}, fmt.Errorf("event %q: %d indexed arguments; a non-anonymous event has at most 3", sig, indexed)
	}
	return abi.NewEvent(name, name, false, args), nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// checkSize rejects integer and fixed-bytes sizes Solidity does not have.
func checkSize(t abi.Type) error {
	switch t.T {
	case abi.IntTy, abi.UintTy:
		if t.Size < 8 || t.Size > 256 || t.Size%8 != 0 {
			return fmt.Errorf("integers are 8 to 256 bits in steps of 8")
		}
	case abi.FixedBytesTy:
		if t.Size < 1 || t.Size > 32 {
			return fmt.Errorf("fixed bytes are bytes1 to bytes32")
		}
	case abi.SliceTy, abi.ArrayTy:
		return checkSize(*t.Elem)
	}
	return nil
}
