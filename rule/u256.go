package rule

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// u256 is the CEL value of u256(x) / uint256(x): an unsigned 256-bit integer
// with checked arithmetic (+ - * / %) and comparisons against u256, int,
// uint and double values. It leaves an expression as a decimal string, the
// canonical form of the XRC uint256 type.
type u256 struct{ v *big.Int }

// u256Type is the CEL type of u256 values, with the traits that route the
// arithmetic and comparison operators to them. It also declares the
// conversion overloads string(), int(), uint() and double().
var u256Type = cel.ObjectType("xgr.u256",
	traits.AdderType, traits.ComparerType, traits.DividerType,
	traits.ModderType, traits.MultiplierType, traits.SubtractorType)

func newU256(v *big.Int) ref.Val {
	if v.Sign() < 0 || v.Cmp(maxUint256) > 0 {
		return types.NewErr("u256 overflow: %s is outside [0, 2^256-1]", v)
	}
	return u256{v: v}
}

// toU256 implements u256(x) for ints, uints, integral doubles, decimal or 0x
// hex strings and u256 values.
func toU256(x ref.Val) ref.Val {
	switch a := x.(type) {
	case u256:
		return a
	case types.Int:
		return newU256(big.NewInt(int64(a)))
	case types.Uint:
		return newU256(new(big.Int).SetUint64(uint64(a)))
	case types.Double:
		n, err := floatToInt(float64(a))
		if err != "" {
			return types.NewErr("u256: %s", err)
		}
		return newU256(n)
	case types.String:
		s := string(a)
		if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && len(s) <= 66 && isHex(s[2:]) {
			n, _ := new(big.Int).SetString(s[2:], 16)
			return newU256(n)
		}
		n, err := parseIntegral(s, false)
		if err != "" {
			return types.NewErr("u256: %q is %s", s, err)
		}
		return newU256(n)
	}
	return types.NewErr("u256: no conversion from %s", x.Type().TypeName())
}

// bigOf reads an integer operand; doubles only when integral.
func bigOf(o ref.Val) (*big.Int, bool) {
	switch a := o.(type) {
	case u256:
		return a.v, true
	case types.Int:
		return big.NewInt(int64(a)), true
	case types.Uint:
		return new(big.Int).SetUint64(uint64(a)), true
	}
	return nil, false
}

func (x u256) arith(o ref.Val, op string, f func(z, a, b *big.Int) *big.Int) ref.Val {
	b, ok := bigOf(o)
	if !ok {
		return types.NewErr("no such overload: u256 %s %s", op, o.Type().TypeName())
	}
	if (op == "/" || op == "%") && b.Sign() == 0 {
		if op == "/" {
			return types.NewErr("division by zero")
		}
		return types.NewErr("modulus by zero")
	}
	return newU256(f(new(big.Int), x.v, b))
}

// Add implements traits.Adder.
func (x u256) Add(o ref.Val) ref.Val { return x.arith(o, "+", (*big.Int).Add) }

// Subtract implements traits.Subtractor.
func (x u256) Subtract(o ref.Val) ref.Val { return x.arith(o, "-", (*big.Int).Sub) }

// Multiply implements traits.Multiplier.
func (x u256) Multiply(o ref.Val) ref.Val { return x.arith(o, "*", (*big.Int).Mul) }

// Divide implements traits.Divider (truncating).
func (x u256) Divide(o ref.Val) ref.Val { return x.arith(o, "/", (*big.Int).Quo) }

// Modulo implements traits.Modder.
func (x u256) Modulo(o ref.Val) ref.Val { return x.arith(o, "%", (*big.Int).Rem) }

// Compare implements traits.Comparer.
func (x u256) Compare(o ref.Val) ref.Val {
	if b, ok := bigOf(o); ok {
		return types.Int(x.v.Cmp(b))
	}
	if d, ok := o.(types.Double); ok {
		if d != d { // NaN
			return types.NewErr("u256 compared with NaN")
		}
		return types.Int(new(big.Float).SetInt(x.v).Cmp(big.NewFloat(float64(d))))
	}
	return types.NewErr("no such overload: u256 compared with %s", o.Type().TypeName())
}

// ConvertToNative implements ref.Val.
func (x u256) ConvertToNative(t reflect.Type) (any, error) {
	switch t {
	case reflect.TypeOf(&big.Int{}):
		return new(big.Int).Set(x.v), nil
	case reflect.TypeOf(""):
		return x.v.String(), nil
	case reflect.TypeOf(uint64(0)):
		if !x.v.IsUint64() {
			return nil, fmt.Errorf("u256 %s overflows uint64", x.v)
		}
		return x.v.Uint64(), nil
	}
	if t.Kind() == reflect.Interface {
		return x.v.String(), nil
	}
	return nil, fmt.Errorf("u256 does not convert to %v", t)
}

// ConvertToType implements ref.Val: string(u256(x)), int(...), uint(...), double(...).
func (x u256) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(x.v.String())
	case types.UintType:
		if !x.v.IsUint64() {
			return types.NewErr("u256 %s overflows uint", x.v)
		}
		return types.Uint(x.v.Uint64())
	case types.IntType:
		if !x.v.IsInt64() {
			return types.NewErr("u256 %s overflows int", x.v)
		}
		return types.Int(x.v.Int64())
	case types.DoubleType:
		f, _ := new(big.Float).SetInt(x.v).Float64()
		return types.Double(f)
	case types.TypeType:
		return u256Type
	case u256Type:
		return x
	}
	return types.NewErr("type conversion error from u256 to %s", t.TypeName())
}

// Equal implements ref.Val; it is numeric equality across u256, int, uint and double.
func (x u256) Equal(o ref.Val) ref.Val {
	c, ok := x.Compare(o).(types.Int)
	return types.Bool(ok && c == 0)
}

// Type implements ref.Val.
func (x u256) Type() ref.Type { return u256Type }

// Value implements ref.Val.
func (x u256) Value() any { return x.v }
