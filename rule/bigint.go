package rule

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Exact big integers in expressions. Values whose XRC type is uint256 or
// int256 (and undeclared integers beyond the 64-bit range) are presented to
// CEL as u256 and i256 values: 256-bit integers with checked arithmetic
// (+ - * / % and unary -) and exact comparisons and equality against each
// other and against int, uint and double values, in both operand orders
// (see ops.go). A result outside the type's range is a hard error naming the
// value and the range. They leave an expression as decimal strings, the
// canonical form of the XRC uint256 and int256 types.
//
// Result types: u256 with u256, int or uint gives u256 ([0, 2^256-1]); i256
// with i256, int or uint gives i256 ([-2^255, 2^255-1]); u256 with i256
// gives i256 when the result fits it, else u256. A double joins the
// arithmetic only when it is integral (its exact value); a fractional
// double is an error, since the result could not be exact.

// u256 is an unsigned 256-bit integer (u256(x), uint256(x), uint256 values).
type u256 struct{ v *big.Int }

// i256 is a signed 256-bit integer (i256(x), int256(x), int256 values).
type i256 struct{ v *big.Int }

var bigTraits = []int{traits.AdderType, traits.ComparerType, traits.DividerType,
	traits.ModderType, traits.MultiplierType, traits.NegatorType, traits.SubtractorType}

// u256Type and i256Type are the CEL types of the big integers, with the
// traits that route operators whose left operand is one of them.
var (
	u256Type = cel.ObjectType("xgr.u256", bigTraits...)
	i256Type = cel.ObjectType("xgr.i256", bigTraits...)
)

const (
	u256Range = "[0, 2^256-1]"
	i256Range = "[-2^255, 2^255-1]"
	bigRange  = "[-2^255, 2^256-1]"
)

func inU256(v *big.Int) bool { return v.Sign() >= 0 && v.Cmp(maxUint256) <= 0 }
func inI256(v *big.Int) bool { return v.Cmp(minInt256) >= 0 && v.Cmp(maxInt256) <= 0 }

func newU256(v *big.Int) ref.Val {
	if !inU256(v) {
		return types.NewErr("u256 overflow: %s is outside %s", v, u256Range)
	}
	return u256{v: v}
}

func newI256(v *big.Int) ref.Val {
	if !inI256(v) {
		return types.NewErr("i256 overflow: %s is outside %s", v, i256Range)
	}
	return i256{v: v}
}

// bigFromText reads the decimal string of a cast uint256 / int256 value.
func bigFromText(s string) (*big.Int, bool) {
	return new(big.Int).SetString(s, 10)
}

// toU256 implements u256(x) / uint256(x) for ints, uints, integral doubles,
// decimal or 0x hex strings and big integers.
func toU256(x ref.Val) ref.Val {
	n, errv := bigArg(x, "u256")
	if errv != nil {
		return errv
	}
	return newU256(n)
}

// toI256 implements i256(x) / int256(x) like toU256 (hex strings read as
// unsigned numbers).
func toI256(x ref.Val) ref.Val {
	n, errv := bigArg(x, "i256")
	if errv != nil {
		return errv
	}
	return newI256(n)
}

func bigArg(x ref.Val, fn string) (*big.Int, ref.Val) {
	switch a := x.(type) {
	case u256:
		return a.v, nil
	case i256:
		return a.v, nil
	case types.Int:
		return big.NewInt(int64(a)), nil
	case types.Uint:
		return new(big.Int).SetUint64(uint64(a)), nil
	case types.Double:
		n, err := floatToInt(float64(a))
		if err != "" {
			return nil, types.NewErr("%s: %s", fn, err)
		}
		return n, nil
	case types.String:
		s := string(a)
		if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && len(s) <= 66 && isHex(s[2:]) {
			n, _ := new(big.Int).SetString(s[2:], 16)
			return n, nil
		}
		n, err := parseIntegral(s, false)
		if err != "" {
			return nil, types.NewErr("%s: %q is %s", fn, s, err)
		}
		return n, nil
	}
	return nil, types.NewErr("%s: no conversion from %s", fn, x.Type().TypeName())
}

// isBig reports whether v is a u256 or i256.
func isBig(v ref.Val) bool {
	switch v.(type) {
	case u256, i256:
		return true
	}
	return false
}

// Operand kinds of big-integer arithmetic.
const (
	kindInt = iota
	kindUint
	kindDouble
	kindU256
	kindI256
)

// bigOperand reads an operand of big-integer arithmetic: integers exactly,
// doubles only when integral.
func bigOperand(v ref.Val) (*big.Int, int, bool) {
	switch a := v.(type) {
	case u256:
		return a.v, kindU256, true
	case i256:
		return a.v, kindI256, true
	case types.Int:
		return big.NewInt(int64(a)), kindInt, true
	case types.Uint:
		return new(big.Int).SetUint64(uint64(a)), kindUint, true
	case types.Double:
		n, err := floatToInt(float64(a))
		if err != "" {
			return nil, kindDouble, false
		}
		return n, kindDouble, true
	}
	return nil, 0, false
}

func typeName(v ref.Val) string {
	switch v.(type) {
	case u256:
		return "u256"
	case i256:
		return "i256"
	}
	return v.Type().TypeName()
}

// bigOp computes x op y exactly (op one of + - * / %, truncating division,
// the remainder with the dividend's sign); a zero divisor is an error value.
func bigOp(op string, x, y *big.Int) (*big.Int, ref.Val) {
	if (op == "/" || op == "%") && y.Sign() == 0 {
		if op == "/" {
			return nil, types.NewErr("division by zero")
		}
		return nil, types.NewErr("modulus by zero")
	}
	r := new(big.Int)
	switch op {
	case "+":
		r.Add(x, y)
	case "-":
		r.Sub(x, y)
	case "*":
		r.Mul(x, y)
	case "/":
		r.Quo(x, y)
	default:
		r.Rem(x, y)
	}
	return r, nil
}

// bigArith computes a op b where at least one operand is a u256 or i256.
func bigArith(op string, a, b ref.Val) ref.Val {
	x, kx, okx := bigOperand(a)
	y, ky, oky := bigOperand(b)
	if !okx || !oky {
		for _, o := range []ref.Val{a, b} {
			if d, ok := o.(types.Double); ok {
				return types.NewErr("%s %s %s: a fractional or non-finite double (%s) cannot take part in exact integer arithmetic; convert the big integer with double(...) for floating-point math",
					typeName(a), op, typeName(b), FormatFloat(float64(d)))
			}
		}
		return types.NewErr("no such overload: %s %s %s", typeName(a), op, typeName(b))
	}
	r, errVal := bigOp(op, x, y)
	if errVal != nil {
		return errVal
	}
	unsigned := kx == kindU256 || ky == kindU256
	signed := kx == kindI256 || ky == kindI256
	switch {
	case unsigned && signed:
		if inI256(r) {
			return i256{v: r}
		}
		if inU256(r) {
			return u256{v: r}
		}
		return types.NewErr("big integer overflow: %s %s %s = %s is outside %s", x, op, y, r, bigRange)
	case unsigned:
		if !inU256(r) {
			return types.NewErr("u256 overflow: %s %s %s = %s is outside %s", x, op, y, r, u256Range)
		}
		return u256{v: r}
	default:
		if !inI256(r) {
			return types.NewErr("i256 overflow: %s %s %s = %s is outside %s", x, op, y, r, i256Range)
		}
		return i256{v: r}
	}
}

// exactFloat reads a numeric value as an exact big.Float; ok is false for
// non-numbers, nan for NaN.
func exactFloat(v ref.Val) (f *big.Float, nan, ok bool) {
	switch a := v.(type) {
	case u256:
		return new(big.Float).SetInt(a.v), false, true
	case i256:
		return new(big.Float).SetInt(a.v), false, true
	case types.Int:
		return new(big.Float).SetInt64(int64(a)), false, true
	case types.Uint:
		return new(big.Float).SetUint64(uint64(a)), false, true
	case types.Double:
		if math.IsNaN(float64(a)) {
			return nil, true, true
		}
		return new(big.Float).SetFloat64(float64(a)), false, true
	}
	return nil, false, false
}

// bigCompare orders a and b, one of them a big integer, exactly. NaN
// cannot be ordered (nan is set); a non-number is an error.
func bigCompare(a, b ref.Val) (cmp int, nan bool, errv ref.Val) {
	x, nx, okx := exactFloat(a)
	y, ny, oky := exactFloat(b)
	if !okx || !oky {
		return 0, false, types.NewErr("no such overload: %s compared with %s", typeName(a), typeName(b))
	}
	if nx || ny {
		return 0, true, nil
	}
	return x.Cmp(y), false, nil
}

// bigEqual is numeric equality with a big integer; values of other kinds
// are never equal to one.
func bigEqual(a, b ref.Val) bool {
	c, nan, errv := bigCompare(a, b)
	return errv == nil && !nan && c == 0
}

func bigCompareVal(a, b ref.Val) ref.Val {
	c, nan, errv := bigCompare(a, b)
	if errv != nil {
		return errv
	}
	if nan {
		return types.NewErr("NaN values cannot be ordered")
	}
	return types.Int(c)
}

// Add implements traits.Adder.
func (x u256) Add(o ref.Val) ref.Val { return bigArith("+", x, o) }

// Subtract implements traits.Subtractor.
func (x u256) Subtract(o ref.Val) ref.Val { return bigArith("-", x, o) }

// Multiply implements traits.Multiplier.
func (x u256) Multiply(o ref.Val) ref.Val { return bigArith("*", x, o) }

// Divide implements traits.Divider (truncating).
func (x u256) Divide(o ref.Val) ref.Val { return bigArith("/", x, o) }

// Modulo implements traits.Modder (the sign of the dividend).
func (x u256) Modulo(o ref.Val) ref.Val { return bigArith("%", x, o) }

// Negate implements traits.Negater: the result is an i256.
func (x u256) Negate() ref.Val { return newI256(new(big.Int).Neg(x.v)) }

// Compare implements traits.Comparer.
func (x u256) Compare(o ref.Val) ref.Val { return bigCompareVal(x, o) }

// Equal implements ref.Val; it is numeric equality across u256, i256, int,
// uint and double.
func (x u256) Equal(o ref.Val) ref.Val { return types.Bool(bigEqual(x, o)) }

// ConvertToNative implements ref.Val.
func (x u256) ConvertToNative(t reflect.Type) (any, error) { return bigToNative("u256", x.v, t) }

// ConvertToType implements ref.Val: string(x), int(x), uint(x), double(x).
func (x u256) ConvertToType(t ref.Type) ref.Val {
	if t == u256Type {
		return x
	}
	return bigToType("u256", x.v, t)
}

// Type implements ref.Val.
func (x u256) Type() ref.Type { return u256Type }

// Value implements ref.Val.
func (x u256) Value() any { return x.v }

// MarshalJSON writes the decimal string (the canonical uint256 form).
func (x u256) MarshalJSON() ([]byte, error) { return json.Marshal(x.v.String()) }

// Add implements traits.Adder.
func (x i256) Add(o ref.Val) ref.Val { return bigArith("+", x, o) }

// Subtract implements traits.Subtractor.
func (x i256) Subtract(o ref.Val) ref.Val { return bigArith("-", x, o) }

// Multiply implements traits.Multiplier.
func (x i256) Multiply(o ref.Val) ref.Val { return bigArith("*", x, o) }

// Divide implements traits.Divider (truncating).
func (x i256) Divide(o ref.Val) ref.Val { return bigArith("/", x, o) }

// Modulo implements traits.Modder (the sign of the dividend).
func (x i256) Modulo(o ref.Val) ref.Val { return bigArith("%", x, o) }

// Negate implements traits.Negater.
func (x i256) Negate() ref.Val { return newI256(new(big.Int).Neg(x.v)) }

// Compare implements traits.Comparer.
func (x i256) Compare(o ref.Val) ref.Val { return bigCompareVal(x, o) }

// Equal implements ref.Val (numeric equality, as for u256).
func (x i256) Equal(o ref.Val) ref.Val { return types.Bool(bigEqual(x, o)) }

// ConvertToNative implements ref.Val.
func (x i256) ConvertToNative(t reflect.Type) (any, error) { return bigToNative("i256", x.v, t) }

// ConvertToType implements ref.Val.
func (x i256) ConvertToType(t ref.Type) ref.Val {
	if t == i256Type {
		return x
	}
	return bigToType("i256", x.v, t)
}

// Type implements ref.Val.
func (x i256) Type() ref.Type { return i256Type }

// Value implements ref.Val.
func (x i256) Value() any { return x.v }

// MarshalJSON writes the decimal string (the canonical int256 form).
func (x i256) MarshalJSON() ([]byte, error) { return json.Marshal(x.v.String()) }

func bigToNative(name string, v *big.Int, t reflect.Type) (any, error) {
	switch t {
	case reflect.TypeOf(&big.Int{}):
		return new(big.Int).Set(v), nil
	case reflect.TypeOf(""):
		return v.String(), nil
	case reflect.TypeOf(uint64(0)):
		if !v.IsUint64() {
			return nil, fmt.Errorf("%s %s overflows uint64", name, v)
		}
		return v.Uint64(), nil
	case reflect.TypeOf(int64(0)):
		if !v.IsInt64() {
			return nil, fmt.Errorf("%s %s overflows int64", name, v)
		}
		return v.Int64(), nil
	}
	if t.Kind() == reflect.Interface {
		return v.String(), nil
	}
	return nil, fmt.Errorf("%s does not convert to %v", name, t)
}

func bigToType(name string, v *big.Int, t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(v.String())
	case types.UintType:
		if !v.IsUint64() {
			return types.NewErr("%s %s overflows uint", name, v)
		}
		return types.Uint(v.Uint64())
	case types.IntType:
		if !v.IsInt64() {
			return types.NewErr("%s %s overflows int", name, v)
		}
		return types.Int(v.Int64())
	case types.DoubleType:
		f, _ := new(big.Float).SetInt(v).Float64()
		return types.Double(f)
	case types.TypeType:
		if name == "u256" {
			return u256Type
		}
		return i256Type
	case u256Type:
		return newU256(new(big.Int).Set(v))
	case i256Type:
		return newI256(new(big.Int).Set(v))
	}
	return types.NewErr("type conversion error from %s to %s", name, t.TypeName())
}
