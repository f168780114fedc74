package rule

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ExecSignature is an execution's function signature parsed into ABI
// parameter types: "transfer(address,uint256)" or, with the return list the
// XRC-137 builder writes, "transfer(address,uint256)(bool)" (the return
// list is checked and ignored: it does not change the selector).
type ExecSignature struct {
	// Name is the function name.
	Name string
	// Params are the parameter types in order; "uint" and "int" read as
	// uint256 and int256, as in Solidity.
	Params abi.Arguments
	// Selector is the first 4 bytes of keccak256("name(type,...)") in the
	// canonical spelling.
	Selector [4]byte
}

// execParamTypes lists what an execution parameter may be, for messages.
const execParamTypes = "elementary ABI types: uintN/intN (N = 8..256, a multiple of 8; uint and int are 256), address, bool, string, bytes, bytes1..bytes32"

// ParseExecSignature parses an execution's "function" string. It accepts
// what CheckSignature accepts, bounded by MaxStringValueLen and MaxExecArgs,
// and refuses parameter types an XRC typed value cannot fill: tuples,
// arrays and function (the 14 XRC types are scalars, spec §10). It parses
// the parameter list itself, one elementary type at a time, so that no
// size is taken from the input before it is checked. It returns what is
// wrong, naming what is allowed.
func ParseExecSignature(sig string) (*ExecSignature, error) {
	if len(sig) > MaxStringValueLen {
		return nil, fmt.Errorf("the signature is %d characters; XRC-137 allows at most %d (MaxStringValueLen)", len(sig), MaxStringValueLen)
	}
	if msg := CheckSignature(sig, true); msg != "" {
		return nil, fmt.Errorf("function %q: %s", sig, msg)
	}
	open := strings.IndexByte(sig, '(')
	n, end := SignatureParams(sig)
	if n > MaxExecArgs {
		return nil, fmt.Errorf("function %q has %d parameters; XRC-137 allows at most %d execution args (MaxExecArgs)", sig, n, MaxExecArgs)
	}
	out := &ExecSignature{Name: sig[:open], Params: make(abi.Arguments, 0, n)}
	inner := sig[open+1 : end-1]
	canon := make([]string, 0, n)
	if inner != "" {
		for i, t := range strings.Split(inner, ",") {
			if strings.ContainsAny(t, "()[]") || t == "function" {
				return nil, fmt.Errorf("function %q: parameter %d is %q; execution parameters are %s (an XRC typed value cannot fill a tuple, an array or a function)", sig, i, t, execParamTypes)
			}
			switch t {
			case "uint", "int":
				t += "256"
			}
			typ, err := abi.NewType(t, "", nil)
			if err != nil {
				return nil, fmt.Errorf("function %q: parameter %d %q: %v; execution parameters are %s", sig, i, t, err, execParamTypes)
			}
			out.Params = append(out.Params, abi.Argument{Name: fmt.Sprintf("arg%d", i), Type: typ})
			canon = append(canon, t)
		}
	}
	copy(out.Selector[:], crypto.Keccak256([]byte(out.Name + "(" + strings.Join(canon, ",") + ")"))[:4])
	return out, nil
}

// encode packs the selector and the arguments, each an already converted
// ABI value (see abiArg).
func (s *ExecSignature) encode(vals []any) (data []byte, err error) {
	defer func() {
		// The packer reflects over the values; abiArg gives it the types it
		// expects, and this keeps a miss from taking the process down.
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("the ABI packer failed: %v", p)
		}
	}()
	packed, err := s.Params.Pack(vals...)
	if err != nil {
		return nil, err
	}
	return append(append(make([]byte, 0, 4+len(packed)), s.Selector[:]...), packed...), nil
}

var bigIntType = reflect.TypeOf((*big.Int)(nil))

// abiArg converts v, a value already cast to its XRC type, to what
// go-ethereum packs for the ABI type t, checking ranges and sizes. The
// error says what v is and what t allows.
func abiArg(t abi.Type, xrc Type, v any) (any, error) {
	bad := func(allowed string) (any, error) {
		return nil, fmt.Errorf("%s (declared %s) does not fit ABI %s: %s", describeValue(v), xrc, t.String(), allowed)
	}
	switch t.T {
	case abi.IntTy, abi.UintTy:
		if s, ok := v.(string); ok && len(s) > 80 {
			return bad("a whole number has at most 78 digits here")
		}
		if _, ok := v.(bool); ok {
			return bad("a whole number is needed, not a boolean")
		}
		lo, hi := intRange(t)
		n, why := castInteger(v, lo, hi)
		if n == nil {
			return bad(fmt.Sprintf("a whole number in [%s, %s]%s", lo, hi, because(why)))
		}
		if t.GetType() == bigIntType {
			return n, nil
		}
		out := reflect.New(t.GetType()).Elem()
		if t.T == abi.IntTy {
			out.SetInt(n.Int64())
		} else {
			out.SetUint(n.Uint64())
		}
		return out.Interface(), nil
	case abi.BoolTy:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return bad("true or false (declare the arg as type bool)")
	case abi.AddressTy:
		if s, ok := v.(string); ok && IsAddress(s) {
			return common.HexToAddress(s), nil
		}
		return bad("0x followed by 40 hex digits")
	case abi.StringTy:
		s, ok := v.(string)
		if !ok {
			return bad("a string (declare the arg as type string)")
		}
		if len(s) > MaxStringValueLen {
			return bad(fmt.Sprintf("at most %d characters (MaxStringValueLen); this one has %d", MaxStringValueLen, len(s)))
		}
		return s, nil
	case abi.BytesTy, abi.FixedBytesTy:
		s, ok := v.(string)
		if !ok || len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
			return bad("a 0x hex string")
		}
		if len(s) > MaxStringValueLen {
			return bad(fmt.Sprintf("at most %d characters of hex (MaxStringValueLen); this one has %d", MaxStringValueLen, len(s)))
		}
		if t.T == abi.FixedBytesTy && len(s) != 2+2*t.Size {
			return bad(fmt.Sprintf("exactly %d bytes (%d hex digits after 0x)", t.Size, 2*t.Size))
		}
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return bad("an even number of hex digits after 0x")
		}
		if t.T == abi.BytesTy {
			return b, nil
		}
		out := reflect.New(t.GetType()).Elem()
		reflect.Copy(out, reflect.ValueOf(b))
		return out.Interface(), nil
	}
	return bad(execParamTypes)
}

// intRange is the range of the ABI integer type t.
func intRange(t abi.Type) (lo, hi *big.Int) {
	if t.T == abi.UintTy {
		return zero, new(big.Int).Sub(new(big.Int).Lsh(one, uint(t.Size)), one)
	}
	lim := new(big.Int).Lsh(one, uint(t.Size-1))
	return new(big.Int).Neg(lim), new(big.Int).Sub(lim, one)
}

// because adds why a number was refused, unless it only repeats the range.
func because(why string) string {
	if why == "" || strings.Contains(why, "out of range") {
		return ""
	}
	return " (" + why + ")"
}
