package chain

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/rule"
)

// Signature is a contract read's function signature parsed into an ABI
// method: "balanceOf(address)" or, with the return types the XRC-137
// builder writes, "balanceOf(address)(uint256)".
type Signature struct {
	// Method holds the name, the inputs and the 4-byte selector; its
	// outputs are the declared return types (none when not declared).
	Method abi.Method
	// HasReturns tells whether the signature declared its return types.
	HasReturns bool
}

// ParseSignature checks sig as rule documents are checked
// (rule.CheckSignature) and parses it with go-ethereum's selector parser.
// "uint" and "int" stand for uint256 and int256, as in Solidity.
func ParseSignature(sig string) (s *Signature, err error) {
	defer func() {
		// go-ethereum's selector parser indexes without bounds checks on
		// some malformed input; the document check should keep such input
		// away, and this keeps a miss from taking the process down.
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("function %q: the ABI selector parser failed: %v", sig, p)
		}
	}()
	if msg := rule.CheckSignature(sig, true); msg != "" {
		return nil, fmt.Errorf("function %q: %s", sig, msg)
	}
	_, end := rule.SignatureParams(sig)
	in, err := abi.ParseSelector(sig[:end])
	if err != nil {
		return nil, fmt.Errorf("function %q: %v", sig, err)
	}
	inputs, err := arguments(in.Inputs)
	if err != nil {
		return nil, fmt.Errorf("function %q: parameters: %v", sig, err)
	}
	s = &Signature{}
	var outputs abi.Arguments
	if rest := sig[end:]; rest != "" {
		var out abi.SelectorMarshaling
		out, err = abi.ParseSelector("returns" + rest)
		if err != nil {
			return nil, fmt.Errorf("function %q: return list %q: %v", sig, rest, err)
		}
		if outputs, err = arguments(out.Inputs); err != nil {
			return nil, fmt.Errorf("function %q: return list: %v", sig, err)
		}
		s.HasReturns = true
	}
	s.Method = abi.NewMethod(in.Name, in.Name, abi.Function, "view", true, false, inputs, outputs)
	return s, nil
}

func arguments(ms []abi.ArgumentMarshaling) (abi.Arguments, error) {
	args := make(abi.Arguments, len(ms))
	for i, m := range ms {
		canonical(&m)
		t, err := abi.NewType(m.Type, "", m.Components)
		if err != nil {
			return nil, fmt.Errorf("[%d] %s: %v", i, m.Type, err)
		}
		args[i] = abi.Argument{Name: fmt.Sprintf("arg%d", i), Type: t}
	}
	return args, nil
}

// canonical spells "uint"/"int" (also as array element) with their size,
// in m and its tuple components.
func canonical(m *abi.ArgumentMarshaling) {
	for _, p := range []string{"uint", "int"} {
		if rest, ok := strings.CutPrefix(m.Type, p); ok && (rest == "" || rest[0] == '[') {
			m.Type = p + "256" + rest
		}
	}
	if len(m.Components) > 0 {
		cs := make([]abi.ArgumentMarshaling, len(m.Components))
		copy(cs, m.Components)
		for i := range cs {
			canonical(&cs[i])
		}
		m.Components = cs
	}
}

// Calldata encodes a call of the method with the read's arguments, each
// converted from its XRC value to the Go type go-ethereum packs for the
// parameter's ABI type. An argument without a conversion path wraps
// rule.ErrInvalidRead.
func (s *Signature) Calldata(args []rule.ReadArg) ([]byte, error) {
	in := s.Method.Inputs
	if len(args) != len(in) {
		return nil, fmt.Errorf("%w: %s takes %d argument(s), the read gives %d", rule.ErrInvalidRead, s.Method.Sig, len(in), len(args))
	}
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := abiValue(in[i].Type, a)
		if err != nil {
			return nil, fmt.Errorf("%w: %s args[%d]: %v", rule.ErrInvalidRead, s.Method.Sig, i, err)
		}
		vals[i] = v
	}
	packed, err := in.Pack(vals...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", rule.ErrInvalidRead, s.Method.Sig, err)
	}
	return append(append(make([]byte, 0, 4+len(packed)), s.Method.ID...), packed...), nil
}

// abiValue converts a cast XRC value to what abi.Arguments.Pack expects for t.
func abiValue(t abi.Type, a rule.ReadArg) (any, error) {
	v := a.Value
	mismatch := func(why string) (any, error) {
		return nil, fmt.Errorf("%s value %s cannot be passed as ABI %s: %s", a.Type, describe(v), t.String(), why)
	}
	switch t.T {
	case abi.IntTy, abi.UintTy:
		n, ok := integer(v)
		if !ok {
			return mismatch("not a whole number")
		}
		if !fits(n, t) {
			return mismatch("out of range")
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
		return mismatch("not a bool")
	case abi.AddressTy:
		if s, ok := v.(string); ok && common.IsHexAddress(s) && strings.HasPrefix(strings.ToLower(s), "0x") {
			return common.HexToAddress(s), nil
		}
		return mismatch("not 0x followed by 40 hex digits")
	case abi.StringTy:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return mismatch("not a string")
	case abi.BytesTy, abi.FixedBytesTy:
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
			return mismatch("not a 0x hex string")
		}
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return mismatch("invalid hex")
		}
		if t.T == abi.BytesTy {
			return b, nil
		}
		if len(b) != t.Size {
			return mismatch(fmt.Sprintf("%d bytes, bytes%d takes exactly %d", len(b), t.Size, t.Size))
		}
		out := reflect.New(t.GetType()).Elem()
		reflect.Copy(out, reflect.ValueOf(b))
		return out.Interface(), nil
	}
	return mismatch("contract read arguments are elementary ABI types (integers, bool, address, string, bytes, bytesN)")
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

var bigIntType = reflect.TypeOf((*big.Int)(nil))

// integer reads a cast XRC value as a whole number: int64, uint64, a
// decimal string (int256, uint256, decimal) or an integral double.
func integer(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case string:
		return new(big.Int).SetString(x, 10)
	case float64:
		f := big.NewFloat(x)
		if !f.IsInt() {
			return nil, false
		}
		n, _ := f.Int(nil)
		return n, true
	}
	return nil, false
}

// fits reports whether n is in the range of the integer type t.
func fits(n *big.Int, t abi.Type) bool {
	if t.T == abi.UintTy {
		return n.Sign() >= 0 && n.BitLen() <= t.Size
	}
	lim := new(big.Int).Lsh(big.NewInt(1), uint(t.Size-1)) // 2^(size-1)
	return n.Cmp(lim) < 0 && n.Cmp(new(big.Int).Neg(lim)) >= 0
}

// slotType is the ABI type a return slot is decoded with when the
// signature declares no return types: the widest word of the XRC type's
// kind, so that the XRC cast, not the decoder, checks the range.
func slotType(t rule.Type) abi.Type {
	name := "bytes32"
	switch t {
	case rule.TypeBool:
		name = "bool"
	case rule.TypeAddress:
		name = "address"
	case rule.TypeString, rule.TypeUUID:
		name = "string"
	case rule.TypeBytes:
		name = "bytes"
	case rule.TypeUint64, rule.TypeUint256, rule.TypeTimestampMs, rule.TypeDurationMs:
		name = "uint256"
	case rule.TypeInt64, rule.TypeInt256, rule.TypeDouble, rule.TypeDecimal:
		name = "int256"
	}
	typ, err := abi.NewType(name, "", nil)
	if err != nil {
		panic(err) // fixed, valid type names
	}
	return typ
}

// plain converts a decoded ABI value to what rule.Cast takes: integers as
// they are, addresses and byte strings as 0x hex, arrays and tuples as
// lists.
func plain(v any) any {
	switch x := v.(type) {
	case nil, bool, string, *big.Int, int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return v
	case common.Address:
		return x.Hex()
	case []byte:
		return "0x" + hex.EncodeToString(x)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return "0x" + hex.EncodeToString(b)
		}
		fallthrough
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = plain(rv.Index(i).Interface())
		}
		return out
	case reflect.Struct:
		out := make([]any, rv.NumField())
		for i := range out {
			out[i] = plain(rv.Field(i).Interface())
		}
		return out
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		return plain(rv.Elem().Interface())
	}
	return v
}
