package rule

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Errors callers test with errors.Is.
var (
	// ErrSoftInvalid marks data incompleteness: a key an expression or
	// template needs is missing. It downgrades a step to invalid; it never
	// aborts it.
	ErrSoftInvalid = errors.New("soft-invalid")
	// ErrExprTooLong is the MaxExprLen cap (hard error).
	ErrExprTooLong = errors.New("expression too long")
	// ErrExprTooComplex is the MaxASTNodes cap (hard error).
	ErrExprTooComplex = errors.New("expression too complex")
	// ErrListCapExceeded is the MaxListCap cap (hard error).
	ErrListCapExceeded = errors.New("list cap exceeded")
	// ErrValueTooLarge is the MaxValueBytes cap: an expression would build
	// a string, bytes, list or map larger than it (hard error).
	ErrValueTooLarge = errors.New("value too large")
	// ErrEvalTimeout is the MaxEvalTime bound of one expression (hard
	// error).
	ErrEvalTimeout = errors.New("expression evaluation timed out")
)

// MissingKeysError is the soft-invalid error of an expression or template
// that references keys absent from the environment.
type MissingKeysError struct {
	Keys []string
}

func (e *MissingKeysError) Error() string {
	if len(e.Keys) == 1 {
		return fmt.Sprintf("missing key %q", e.Keys[0])
	}
	return fmt.Sprintf("missing keys %q", e.Keys)
}

// Unwrap makes errors.Is(err, ErrSoftInvalid) true.
func (e *MissingKeysError) Unwrap() error { return ErrSoftInvalid }

// Text is the text form of a value in templates: strings as they are,
// numbers in decimal (doubles as the shortest exact decimal), booleans as
// true/false, null as "null", lists and objects as compact JSON.
func Text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return FormatFloat(x)
	case json.Number:
		return string(x)
	case nil:
		return "null"
	case *big.Int:
		return x.String()
	case u256:
		return x.v.String()
	case i256:
		return x.v.String()
	case []byte:
		return "0x" + hex.EncodeToString(x)
	}
	if i, ok := goInteger(v); ok {
		return i.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// normalize converts an input value into its exact plain form, the form
// that is reported and passed through (see celValue for what expressions see):
// json.Number and *big.Int become int64 or uint64 when they are integral
// and fit, and stay json.Number (the exact decimal text) otherwise;
// float32 becomes float64, other Go integers int64 or uint64, []byte a 0x
// hex string, u256 and i256 decimal strings; maps and lists are copied
// recursively. It enforces MaxListCap and MaxValueDepth on the way.
func normalize(v any) (any, error) { return normalizeAt(v, 0) }

func normalizeAt(v any, depth int) (any, error) {
	if depth > MaxValueDepth {
		return nil, fmt.Errorf("value nested deeper than %d levels", MaxValueDepth)
	}
	switch x := v.(type) {
	case nil, bool, string, int64, uint64:
		return x, nil
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case json.Number:
		if !isDecimalText(string(x), true) {
			return nil, fmt.Errorf("number %q is not a decimal number", string(x))
		}
		if n, err := parseIntegral(string(x), true); err == "" {
			switch {
			case n.IsInt64():
				return n.Int64(), nil
			case n.IsUint64():
				return n.Uint64(), nil
			}
		}
		return x, nil
	case *big.Int:
		switch {
		case x.IsInt64():
			return x.Int64(), nil
		case x.IsUint64():
			return x.Uint64(), nil
		}
		return json.Number(x.String()), nil
	case u256:
		return x.v.String(), nil
	case i256:
		return x.v.String(), nil
	case []byte:
		return "0x" + hex.EncodeToString(x), nil
	case []any:
		if len(x) > MaxListCap {
			return nil, fmt.Errorf("%w: a list has %d elements; at most %d are allowed (MaxListCap)", ErrListCapExceeded, len(x), MaxListCap)
		}
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalizeAt(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalizeAt(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint:
		return uint64(x), nil
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	}
	return nil, fmt.Errorf("unsupported value of Go type %T", v)
}

// celNumber reads decimal number text for expressions. With asDouble (API
// responses, expression guide §6.1) integers that a double holds exactly
// (|n| <= 2^53) are doubles too.
func celNumber(s string, asDouble bool) any {
	if n, err := parseIntegral(s, true); err == "" && (!asDouble || n.CmpAbs(maxExactDouble) > 0) {
		switch {
		case n.IsInt64():
			return n.Int64()
		case n.IsUint64():
			return n.Uint64()
		case inU256(n):
			return u256{v: n}
		case inI256(n):
			return i256{v: n}
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// maxExactDouble is 2^53: every integer up to it is a double exactly.
var maxExactDouble = new(big.Int).Lsh(big.NewInt(1), 53)

// celValue converts a normalized value into what expressions see. With
// doubles (an undeclared payload key, an API response: expression guide
// §6.1) numbers are doubles, except integers a double cannot hold exactly
// (beyond ±2^53), which stay exact; without, integral numbers are int,
// uint, u256 or i256 by range and other numbers double (the one inexact
// path: a fraction, or an integer beyond 256 bits). Lists and maps are
// copied.
func celValue(v any, doubles bool) any {
	switch x := v.(type) {
	case json.Number:
		return celNumber(string(x), doubles)
	case int64:
		if doubles && x >= -1<<53 && x <= 1<<53 {
			return float64(x)
		}
		return x
	case uint64:
		if doubles && x <= 1<<53 {
			return float64(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = celValue(e, doubles)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = celValue(e, doubles)
		}
		return out
	}
	return v
}

// celTyped is what expressions see of a value cast to t: uint256 and
// int256 as u256 and i256, undeclared values by celValue, everything else as
// cast.
func celTyped(t Type, v any) any {
	switch t {
	case TypeUint256, TypeInt256:
		s, ok := v.(string)
		if !ok {
			return v
		}
		n, ok := bigFromText(s)
		if !ok {
			return v
		}
		if t == TypeUint256 {
			return u256{v: n}
		}
		return i256{v: n}
	case TypeInvalid:
		return celValue(v, false)
	}
	return v
}

// copyPlain deep-copies the lists and maps of a plain value, so that a
// passed-through value shares nothing with the environment.
func copyPlain(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyPlain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyPlain(e)
		}
		return out
	}
	return v
}

// fromCEL converts an evaluation result into a plain Go value: bool, int64,
// uint64, float64, string, nil, []any, map[string]any. Bytes become 0x hex,
// u256 and i256 values decimal strings (the XRC uint256 / int256 form),
// timestamps RFC 3339 text and durations Go duration text.
// A result larger than MaxValueBytes (measured as valuesize.go measures)
// is refused as it is converted, before more of it is built: whatever
// reached it (an attribute read of a large API response, a value the
// construction checks missed) cannot leave an expression larger.
func fromCEL(v ref.Val) (any, error) {
	budget := MaxValueBytes
	return fromCELAt(v, 0, &budget)
}

func fromCELAt(v ref.Val, depth int, budget *int) (any, error) {
	if depth > MaxValueDepth {
		return nil, fmt.Errorf("result nested deeper than %d levels", MaxValueDepth)
	}
	spend := func(n int) error {
		if *budget -= n; *budget < 0 {
			return fmt.Errorf("%w: the result is larger than %d bytes, the most an expression may give (MaxValueBytes)", ErrValueTooLarge, MaxValueBytes)
		}
		return nil
	}
	switch x := v.(type) {
	case types.String:
		if err := spend(len(x)); err != nil {
			return nil, err
		}
	case types.Bytes:
		if err := spend(2*len(x) + 2); err != nil {
			return nil, err
		}
	case traits.Lister, traits.Mapper:
		if err := spend(2); err != nil {
			return nil, err
		}
	default:
		if err := spend(scalarSize); err != nil {
			return nil, err
		}
	}
	switch x := v.(type) {
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return uint64(x), nil
	case types.Double:
		return float64(x), nil
	case types.String:
		return string(x), nil
	case types.Bytes:
		return "0x" + hex.EncodeToString(x), nil
	case types.Null:
		return nil, nil
	case u256:
		return x.v.String(), nil
	case i256:
		return x.v.String(), nil
	case types.Timestamp:
		return x.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		return x.Duration.String(), nil
	case *types.Err:
		return nil, x
	}
	if types.IsUnknown(v) {
		return nil, errors.New("result depends on unknown values")
	}
	if l, ok := v.(traits.Lister); ok {
		n, ok := l.Size().(types.Int)
		if !ok {
			return nil, errors.New("list of unknown size")
		}
		out := make([]any, 0, int(n))
		it := l.Iterator()
		for it.HasNext() == types.True {
			e, err := fromCELAt(it.Next(), depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	if m, ok := v.(traits.Mapper); ok {
		out := map[string]any{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k.Value())
			}
			if err := spend(len(ks) + 2); err != nil {
				return nil, err
			}
			e, err := fromCELAt(m.Get(k), depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("a value of CEL type %s cannot leave an expression", v.Type().TypeName())
}

// checkOutput refuses values JSON cannot carry (NaN, ±Inf).
func checkOutput(v any) error {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("result %v is not a finite number", x)
		}
	case []any:
		for _, e := range x {
			if err := checkOutput(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range x {
			if err := checkOutput(e); err != nil {
				return err
			}
		}
	}
	return nil
}
