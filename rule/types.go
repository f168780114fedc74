package rule

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Type is one of the 14 XRC types of the rule document spec §10.
type Type uint8

// The XRC types. TypeInvalid is the zero value and never valid in a document.
const (
	TypeInvalid Type = iota
	TypeString
	TypeBool
	TypeInt64
	TypeUint64
	TypeInt256
	TypeUint256
	TypeDouble
	TypeDecimal
	TypeUUID
	TypeAddress
	TypeBytes
	TypeBytes32
	TypeTimestampMs
	TypeDurationMs
)

var typeNames = [...]string{
	TypeInvalid: "invalid", TypeString: "string", TypeBool: "bool", TypeInt64: "int64",
	TypeUint64: "uint64", TypeInt256: "int256", TypeUint256: "uint256", TypeDouble: "double",
	TypeDecimal: "decimal", TypeUUID: "uuid", TypeAddress: "address", TypeBytes: "bytes",
	TypeBytes32: "bytes32", TypeTimestampMs: "timestamp_ms", TypeDurationMs: "duration_ms",
}

// xrcTypeList is the list of type names for messages.
const xrcTypeList = "string, bool, int64, uint64, int256, uint256, double, decimal, uuid, address, bytes, bytes32, timestamp_ms, duration_ms"

// String returns the type's name as written in documents.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "invalid"
}

// MarshalText writes the type's document name.
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// ParseType returns the type named s (exact, lower-case spelling).
func ParseType(s string) (Type, bool) {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i), true
		}
	}
	return TypeInvalid, false
}

// CastError reports a value that has no conversion path to an XRC type, or
// one that is out of the type's range. Casts of inputs and defaults that fail
// are hard errors; casts of extracted values fall back to the alias default.
type CastError struct {
	Type  Type
	Value any
	// Reason says why, e.g. "out of range" or "not 0x + 40 hex digits".
	Reason string
}

func (e *CastError) Error() string {
	return fmt.Sprintf("cannot cast %s to %s: %s", describeValue(e.Value), e.Type, e.Reason)
}

func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:37] + "..."
		}
		return strconv.Quote(x)
	case json.Number:
		return "number " + string(x)
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return fmt.Sprintf("%T %v", v, v)
	case *big.Int:
		return "integer " + x.String()
	case u256:
		return "u256 " + x.v.String()
	case i256:
		return "i256 " + x.v.String()
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// Cast converts v to the canonical representation of t (spec §10):
//
//	string, decimal, uuid, address, bytes, bytes32, int256, uint256 → string
//	bool → bool; int64 → int64; double → float64
//	uint64, timestamp_ms, duration_ms → uint64
//
// Accepted inputs are JSON-decoded values (bool, string, float64,
// json.Number, nil, []any, map[string]any), Go integers and floats,
// *big.Int and []byte. Numeric casts are strict about range; floats cast to
// integers must be integral; non-finite doubles are refused.
func Cast(t Type, v any) (any, error) {
	fail := func(reason string) (any, error) { return nil, &CastError{Type: t, Value: v, Reason: reason} }
	if v == nil {
		return fail("null has no value of this type")
	}
	switch t {
	case TypeString:
		return castString(v, fail)
	case TypeBool:
		return castBool(v, fail)
	case TypeInt64:
		n, err := castInteger(v, minInt64, maxInt64)
		if err != "" {
			return fail(err)
		}
		return n.Int64(), nil
	case TypeUint64, TypeTimestampMs, TypeDurationMs:
		n, err := castInteger(v, zero, maxUint64)
		if err != "" {
			return fail(err)
		}
		return n.Uint64(), nil
	case TypeInt256:
		n, err := castInteger(v, minInt256, maxInt256)
		if err != "" {
			return fail(err)
		}
		return n.String(), nil
	case TypeUint256:
		n, err := castInteger(v, zero, maxUint256)
		if err != "" {
			return fail(err)
		}
		return n.String(), nil
	case TypeDouble:
		f, err := castDouble(v)
		if err != "" {
			return fail(err)
		}
		return f, nil
	case TypeDecimal:
		return castDecimal(v, fail)
	case TypeUUID:
		s, ok := v.(string)
		if !ok || !isUUID(s) {
			return fail("not a canonical UUID (8-4-4-4-12 hex digits)")
		}
		return strings.ToLower(s), nil
	case TypeAddress:
		s, ok := v.(string)
		if !ok || !IsAddress(s) {
			return fail("not 0x followed by 40 hex digits")
		}
		return s, nil
	case TypeBytes, TypeBytes32:
		return castBytes(t, v, fail)
	}
	return fail("unknown type")
}

func castString(v any, fail func(string) (any, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return string(x), nil
	case *big.Int:
		return x.String(), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fail("not a finite number")
		}
		return FormatFloat(x), nil
	case float32:
		return castString(float64(x), fail)
	}
	if i, ok := goInteger(v); ok {
		return i.String(), nil
	}
	return fail("only text, numbers and booleans convert to string")
}

func castBool(v any, fail func(string) (any, error)) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch x {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return fail(`only the strings "true" and "false" convert to bool`)
	case json.Number:
		if !isDecimalText(string(x), true) {
			return fail("not a number")
		}
		return !decimalIsZero(string(x)), nil
	case float64:
		if math.IsNaN(x) {
			return fail("NaN is neither true nor false")
		}
		return x != 0, nil
	case float32:
		return castBool(float64(x), fail)
	case *big.Int:
		return x.Sign() != 0, nil
	}
	if i, ok := goInteger(v); ok {
		return i.Sign() != 0, nil
	}
	return fail("only booleans, \"true\"/\"false\" and numbers convert to bool")
}

var (
	zero       = big.NewInt(0)
	minInt64   = big.NewInt(math.MinInt64)
	maxInt64   = big.NewInt(math.MaxInt64)
	maxUint64  = new(big.Int).SetUint64(math.MaxUint64)
	maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	maxInt256  = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
	minInt256  = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 255))
)

// castInteger reads v as a whole number within [lo, hi]; it returns a reason
// on failure.
func castInteger(v any, lo, hi *big.Int) (*big.Int, string) {
	var n *big.Int
	switch x := v.(type) {
	case bool:
		return nil, "booleans do not convert to numbers"
	case string:
		var err string
		if n, err = parseIntegral(x, false); err != "" {
			return nil, err
		}
	case json.Number:
		var err string
		if n, err = parseIntegral(string(x), true); err != "" {
			return nil, err
		}
	case float64:
		var err string
		if n, err = floatToInt(x); err != "" {
			return nil, err
		}
	case float32:
		return castInteger(float64(x), lo, hi)
	case *big.Int:
		n = x
	default:
		i, ok := goInteger(v)
		if !ok {
			return nil, "not a number"
		}
		n = i
	}
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return nil, fmt.Sprintf("%s is out of range [%s, %s]", n, lo, hi)
	}
	return n, ""
}

func floatToInt(f float64) (*big.Int, string) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, "not a finite number"
	}
	if f != math.Trunc(f) {
		return nil, fmt.Sprintf("%s is not a whole number", FormatFloat(f))
	}
	n, _ := new(big.Float).SetFloat64(f).Int(nil)
	return n, ""
}

// goInteger converts Go integer kinds.
func goInteger(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int:
		return big.NewInt(int64(x)), true
	case int8:
		return big.NewInt(int64(x)), true
	case int16:
		return big.NewInt(int64(x)), true
	case int32:
		return big.NewInt(int64(x)), true
	case int64:
		return big.NewInt(x), true
	case uint:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint8:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint16:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint32:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case u256:
		return x.v, true
	case i256:
		return x.v, true
	}
	return nil, false
}

// decimalIsZero reports whether decimal number text (isDecimalText) has
// the value zero: every digit of its mantissa is 0.
func decimalIsZero(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'e' || c == 'E':
			return true
		case c >= '1' && c <= '9':
			return false
		}
	}
	return true
}

// parseIntegral reads a decimal whole number: [+-]digits with an optional
// all-zero fraction ("42.0"); exponents ("4.2e1") only when allowExp. It
// never allocates more than a few hundred digits.
func parseIntegral(s string, allowExp bool) (*big.Int, string) {
	const notWhole = "not a whole decimal number"
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[intStart:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return nil, notWhole
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if !allowExp {
			return nil, notWhole
		}
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if ds == i || i-ds > 4 {
			return nil, notWhole
		}
		e, _ := strconv.Atoi(s[es:i])
		exp = e
	}
	if intPart == "" || i != len(s) {
		return nil, notWhole
	}
	digits := intPart + frac
	exp -= len(frac)
	if exp < 0 {
		cut := -exp
		if cut > len(digits) {
			cut = len(digits)
		}
		if strings.Trim(digits[len(digits)-cut:], "0") != "" {
			return nil, "not a whole number"
		}
		digits = digits[:len(digits)-cut]
		if digits == "" {
			digits = "0"
		}
		exp = 0
	}
	trimmed := strings.TrimLeft(digits, "0")
	if len(trimmed)+exp > 100 {
		return nil, "out of range (more than 100 digits)"
	}
	if trimmed == "" {
		return new(big.Int), ""
	}
	n, _ := new(big.Int).SetString(trimmed+strings.Repeat("0", exp), 10)
	if neg {
		n.Neg(n)
	}
	return n, ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func castDouble(v any) (float64, string) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case json.Number:
		return parseDouble(string(x))
	case string:
		return parseDouble(x)
	case bool:
		return 0, "booleans do not convert to numbers"
	case *big.Int:
		f, _ = new(big.Float).SetInt(x).Float64()
	default:
		i, ok := goInteger(v)
		if !ok {
			return 0, "not a number"
		}
		f, _ = new(big.Float).SetInt(i).Float64()
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "not a finite number"
	}
	return f, ""
}

// parseDouble accepts decimal numbers as JSON writes them (an optional sign
// and leading '+' or '.' forgiven), never "NaN", "Inf" or hex floats.
func parseDouble(s string) (float64, string) {
	if !isDecimalText(s, true) {
		return 0, "not a decimal number"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, "out of the range of a double"
	}
	return f, ""
}

// isDecimalText reports whether s is [+-]digits[.digits][e[+-]digits]
// (".5" and "5." accepted); exponents only when allowExp.
func isDecimalText(s string, allowExp bool) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	ds := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	n := i - ds
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		n += i - fs
	}
	if n == 0 {
		return false
	}
	if allowExp && i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if es == i {
			return false
		}
	}
	return i == len(s)
}

func castDecimal(v any, fail func(string) (any, error)) (any, error) {
	switch x := v.(type) {
	case string:
		if !isDecimalText(x, true) {
			return fail("not a decimal number")
		}
		return x, nil
	case json.Number:
		return string(x), nil
	case bool:
		return fail("booleans do not convert to numbers")
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fail("not a finite number")
		}
		return FormatFloat(x), nil
	case float32:
		return castDecimal(float64(x), fail)
	case *big.Int:
		return x.String(), nil
	}
	if i, ok := goInteger(v); ok {
		return i.String(), nil
	}
	return fail("not a number")
}

func castBytes(t Type, v any, fail func(string) (any, error)) (any, error) {
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = x
	case [32]byte:
		b = x[:]
	case string:
		if len(x) < 2 || x[0] != '0' || (x[1] != 'x' && x[1] != 'X') {
			return fail("not a 0x-prefixed hex string")
		}
		h := x[2:]
		if len(h)%2 != 0 {
			return fail("odd number of hex digits")
		}
		var err error
		if b, err = hex.DecodeString(h); err != nil {
			return fail("invalid hex digit")
		}
	default:
		return fail("not a 0x-prefixed hex string")
	}
	if t == TypeBytes32 && len(b) != 32 {
		return fail(fmt.Sprintf("%d bytes; bytes32 holds exactly 32", len(b)))
	}
	return "0x" + hex.EncodeToString(b), nil
}

// IsAddress reports whether s is 0x followed by 40 hex digits (any case).
func IsAddress(s string) bool {
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return false
	}
	return isHex(s[2:])
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i : i+1]) {
				return false
			}
		}
	}
	return true
}

// FormatFloat writes a double the way templates render it: the shortest
// decimal that reads back exactly, without an exponent below 1e21.
func FormatFloat(f float64) string {
	if a := math.Abs(f); a != 0 && (a >= 1e21 || a < 1e-6) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
