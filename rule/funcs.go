package rule

import (
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// helperLibrary declares the helper functions of the expression guide §7.3.
// Every helper is deterministic, reads nothing but its arguments and is
// bounded by MaxListCap; wrong arity is a check error, wrong argument kinds
// a runtime error, as the guide requires (both hard errors).
func helperLibrary() []cel.EnvOption {
	dyn := cel.DynType
	d1 := []*cel.Type{dyn}
	d2 := []*cel.Type{dyn, dyn}
	d3 := []*cel.Type{dyn, dyn, dyn}
	d4 := []*cel.Type{dyn, dyn, dyn, dyn}
	d5 := []*cel.Type{dyn, dyn, dyn, dyn, dyn}
	d6 := []*cel.Type{dyn, dyn, dyn, dyn, dyn, dyn}
	listHelper := func(name string, f func([]float64) float64) cel.EnvOption {
		return cel.Function(name, cel.Overload("xgr_"+name+"_list", d1, dyn, cel.UnaryBinding(func(v ref.Val) ref.Val {
			xs, errv := numericList(v)
			if errv != nil {
				return errv
			}
			if len(xs) == 0 {
				return types.Double(0)
			}
			return types.Double(f(xs))
		})))
	}
	return []cel.EnvOption{
		cel.Function("abs", cel.Overload("xgr_abs", d1, dyn, cel.UnaryBinding(fnAbs))),
		cel.Function("pow", cel.Overload("xgr_pow", d2, dyn, cel.BinaryBinding(fnPow))),
		cel.Function("relDiff", cel.Overload("xgr_reldiff", d2, dyn, cel.BinaryBinding(fnRelDiff))),
		cel.Function("safeDiv", cel.Overload("xgr_safediv", d3, dyn, cel.FunctionBinding(fnSafeDiv))),
		cel.Function("clamp", cel.Overload("xgr_clamp", d3, dyn, cel.FunctionBinding(fnClamp))),
		cel.Function("dist", cel.Overload("xgr_dist", d3, dyn, cel.FunctionBinding(fnDist))),
		cel.Function("within", cel.Overload("xgr_within", d4, cel.BoolType, cel.FunctionBinding(fnWithin))),
		listHelper("max", maxOf),
		listHelper("min", minOf),
		listHelper("sum", sumOf),
		listHelper("avg", mean),
		listHelper("median", median),
		listHelper("stdev", stdev),
		listHelper("cv", cv),
		listHelper("mad", mad),
		cel.Function("quorum",
			cel.Overload("xgr_quorum_4", d4, cel.BoolType, cel.FunctionBinding(fnQuorum)),
			cel.Overload("xgr_quorum_5", d5, cel.BoolType, cel.FunctionBinding(fnQuorum))),
		cel.Function("consensus",
			cel.Overload("xgr_consensus_5", d5, dyn, cel.FunctionBinding(fnConsensus)),
			cel.Overload("xgr_consensus_6", d6, dyn, cel.FunctionBinding(fnConsensus))),
		cel.Function("join", cel.Overload("xgr_join", d2, cel.StringType, cel.BinaryBinding(fnJoin))),
		cel.Function("unique", cel.Overload("xgr_unique", d1, cel.ListType(dyn), cel.UnaryBinding(fnUnique))),
		cel.Function("u256", cel.Overload("xgr_u256", d1, dyn, cel.UnaryBinding(toU256))),
		cel.Function("uint256", cel.Overload("xgr_uint256", d1, dyn, cel.UnaryBinding(toU256))),
		cel.Function("i256", cel.Overload("xgr_i256", d1, dyn, cel.UnaryBinding(toI256))),
		cel.Function("int256", cel.Overload("xgr_int256", d1, dyn, cel.UnaryBinding(toI256))),
		bigConversion("string", cel.StringType, types.StringType),
		bigConversion("int", cel.IntType, types.IntType),
		bigConversion("uint", cel.UintType, types.UintType),
		bigConversion("double", cel.DoubleType, types.DoubleType),
		cel.Function("int64", cel.Overload("xgr_int64", d1, cel.IntType, cel.UnaryBinding(fnInt64))),
		cel.Function("uint64", cel.Overload("xgr_uint64", d1, cel.UintType, cel.UnaryBinding(fnUint64))),
		cel.Function("lowerAscii", cel.MemberOverload("xgr_string_lower_ascii", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(asciiCase(string(v.(types.String)), false)) }))),
		cel.Function("upperAscii", cel.MemberOverload("xgr_string_upper_ascii", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(asciiCase(string(v.(types.String)), true)) }))),
	}
}

// bigConversion declares string(x), int(x), uint(x) and double(x) for u256
// and i256 values.
func bigConversion(name string, result *cel.Type, to ref.Type) cel.EnvOption {
	conv := cel.UnaryBinding(func(v ref.Val) ref.Val { return v.ConvertToType(to) })
	return cel.Function(name,
		cel.Overload("xgr_u256_to_"+name, []*cel.Type{u256Type}, result, conv),
		cel.Overload("xgr_i256_to_"+name, []*cel.Type{i256Type}, result, conv))
}

func asciiCase(s string, upper bool) string {
	b := []byte(s)
	for i, c := range b {
		if upper && c >= 'a' && c <= 'z' {
			b[i] = c - 32
		} else if !upper && c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// num reads a numeric scalar: int, uint, double, u256 or i256.
func num(v ref.Val) (float64, bool) {
	switch x := v.(type) {
	case types.Double:
		return float64(x), true
	case types.Int:
		return float64(x), true
	case types.Uint:
		return float64(x), true
	case u256:
		f, _ := new(big.Float).SetInt(x.v).Float64()
		return f, true
	case i256:
		f, _ := new(big.Float).SetInt(x.v).Float64()
		return f, true
	}
	return 0, false
}

func fnAbs(v ref.Val) ref.Val {
	x, ok := num(v)
	if !ok {
		return types.NewErr("abs: expects a number, got %s", v.Type().TypeName())
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return types.NewErr("abs: %v is not a finite number", x)
	}
	return types.Double(math.Abs(x))
}

func fnPow(a, b ref.Val) ref.Val {
	x, ok1 := num(a)
	y, ok2 := num(b)
	if !ok1 || !ok2 {
		return types.Double(0)
	}
	return types.Double(math.Pow(x, y))
}

// relDiff is |a-b| / |(a+b)/2| (expression guide §7.3.1). Where that
// midpoint is 0 it is 0 for a == b and Far otherwise, as the guide defines.
// The guide's example relDiff(0.0, 1.0) = 1e18 also puts a zero operand
// against a non-zero one at Far (the formula would give the constant 2
// there, whatever the other value); this implementation follows the
// example, so a source that fell back to 0 is never "near" anything.
func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	m := math.Abs((a + b) / 2)
	if m == 0 || a == 0 || b == 0 {
		return Far
	}
	return math.Abs(a-b) / m
}

func fnRelDiff(a, b ref.Val) ref.Val {
	x, ok1 := num(a)
	y, ok2 := num(b)
	if !ok1 || !ok2 {
		return types.NewErr("relDiff: expects numbers, got %s and %s", a.Type().TypeName(), b.Type().TypeName())
	}
	return types.Double(relDiff(x, y))
}

func fnSafeDiv(args ...ref.Val) ref.Val {
	n, ok1 := num(args[0])
	d, ok2 := num(args[1])
	if !ok1 || !ok2 || d == 0 {
		return args[2]
	}
	return types.Double(n / d)
}

func fnClamp(args ...ref.Val) ref.Val {
	x, ok := num(args[0])
	lo, ok1 := num(args[1])
	hi, ok2 := num(args[2])
	if !ok || !ok1 || !ok2 {
		return args[0]
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	return types.Double(math.Min(math.Max(x, lo), hi))
}

// metric is a distance function of dist, within, quorum and consensus.
type metric uint8

const (
	metricRel metric = iota
	metricAbs
	metricEq
	metricHamming
	metricLev
)

func parseMetric(v ref.Val) (metric, ref.Val) {
	s, ok := v.(types.String)
	if !ok {
		return 0, types.NewErr("metric must be string, got %s", v.Type().TypeName())
	}
	switch strings.ToLower(string(s)) {
	case "", "rel", "relative", "reldiff":
		return metricRel, nil
	case "abs", "absolute":
		return metricAbs, nil
	case "eq", "equal":
		return metricEq, nil
	case "hamming", "ham":
		return metricHamming, nil
	case "lev", "levenshtein":
		return metricLev, nil
	}
	return 0, types.NewErr("unsupported metric %q (use rel, abs, eq, hamming or lev)", string(s))
}

// distance computes dist(metric, a, b).
func distance(m metric, a, b ref.Val) (float64, ref.Val) {
	switch m {
	case metricRel, metricAbs:
		x, ok1 := num(a)
		y, ok2 := num(b)
		if !ok1 || !ok2 {
			return 0, types.NewErr("metric expects numeric values, got %s and %s", a.Type().TypeName(), b.Type().TypeName())
		}
		if m == metricAbs {
			return math.Abs(x - y), nil
		}
		return relDiff(x, y), nil
	case metricEq:
		if eq, ok := a.Equal(b).(types.Bool); ok && bool(eq) {
			return 0, nil
		}
		return 1, nil
	}
	x, ok1 := a.(types.String)
	y, ok2 := b.(types.String)
	if !ok1 || !ok2 {
		return 0, types.NewErr("metric expects strings, got %s and %s", a.Type().TypeName(), b.Type().TypeName())
	}
	// Decide what the lengths decide before converting to runes.
	na, nb := utf8.RuneCountInString(string(x)), utf8.RuneCountInString(string(y))
	if m == metricHamming {
		if na != nb {
			return Far, nil
		}
		return hamming([]rune(string(x)), []rune(string(y))), nil
	}
	if max(na, nb) > MaxLevenshteinLen {
		return Far, nil
	}
	return levenshtein([]rune(string(x)), []rune(string(y))), nil
}

// hamming is the share of differing positions; Far for unequal lengths.
func hamming(a, b []rune) float64 {
	if len(a) != len(b) {
		return Far
	}
	if len(a) == 0 {
		return 0
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	return float64(diff) / float64(len(a))
}

// levenshtein is the edit distance over the longer length; Far beyond MaxLevenshteinLen.
func levenshtein(a, b []rune) float64 {
	n := max(len(a), len(b))
	if n > MaxLevenshteinLen {
		return Far
	}
	if n == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(n)
}

func fnDist(args ...ref.Val) ref.Val {
	m, errv := parseMetric(args[0])
	if errv != nil {
		return errv
	}
	d, errv := distance(m, args[1], args[2])
	if errv != nil {
		return errv
	}
	return types.Double(d)
}

func tolerance(v ref.Val) (float64, ref.Val) {
	t, ok := num(v)
	if !ok || math.IsNaN(t) || t < 0 {
		return 0, types.NewErr("tol must be >= 0, got %v", v.Value())
	}
	return t, nil
}

func fnWithin(args ...ref.Val) ref.Val {
	m, errv := parseMetric(args[0])
	if errv != nil {
		return errv
	}
	tol, errv := tolerance(args[3])
	if errv != nil {
		return errv
	}
	d, errv := distance(m, args[1], args[2])
	if errv != nil {
		return errv
	}
	return types.Bool(d <= tol)
}

// listOf reads a CEL list, refusing lists over MaxListCap.
func listOf(v ref.Val) ([]ref.Val, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, types.NewErr("expects a list, got %s", v.Type().TypeName())
	}
	n, ok := l.Size().(types.Int)
	if !ok {
		return nil, types.NewErr("list of unknown size")
	}
	if n > MaxListCap {
		return nil, types.NewErr("%s: list has %d elements; at most %d are allowed (MaxListCap)", ErrListCapExceeded, int64(n), MaxListCap)
	}
	out := make([]ref.Val, 0, int(n))
	for i := types.Int(0); i < n; i++ {
		out = append(out, l.Get(i))
	}
	return out, nil
}

// numericList reads a list of numbers for the list helpers. A non-list or a
// list with a non-numeric element reads as empty (the helpers then return
// 0.0); only a list over MaxListCap is an error.
func numericList(v ref.Val) ([]float64, ref.Val) {
	if _, ok := v.(traits.Lister); !ok {
		return nil, nil
	}
	items, errv := listOf(v)
	if errv != nil {
		return nil, errv
	}
	xs := make([]float64, len(items))
	for i, it := range items {
		x, ok := num(it)
		if !ok {
			return nil, nil
		}
		xs[i] = x
	}
	return xs, nil
}

func fnJoin(list, sep ref.Val) ref.Val {
	items, errv := listOf(list)
	if errv != nil {
		return types.NewErr("join: %v", errv)
	}
	s, ok := sep.(types.String)
	if !ok {
		return types.NewErr("join: separator must be string, got %s", sep.Type().TypeName())
	}
	// The joined text's size is known before it is built: refuse it
	// there, not after allocating it.
	total := len(s) * max(len(items)-1, 0)
	for _, it := range items {
		n := joinedSize(it, MaxValueBytes-total)
		if n == over {
			return errValueTooLarge("the joined string")
		}
		total += n
	}
	parts := make([]string, len(items))
	for i, it := range items {
		v, err := fromCEL(it)
		if err != nil {
			return types.NewErr("join: %v", err)
		}
		parts[i] = Text(v)
	}
	return types.String(strings.Join(parts, string(s)))
}

// joinedSize is the length of v's text in a joined string (strings
// exactly, other values by their measured size), or over beyond limit.
func joinedSize(v ref.Val, limit int) int {
	switch x := v.(type) {
	case types.String:
		return sizeOr(len(x), limit)
	case traits.Lister, traits.Mapper:
		return (*sizeMemo)(nil).size(v, limit)
	}
	out, err := fromCEL(v)
	if err != nil {
		return 0 // join reports it
	}
	return sizeOr(len(Text(out)), limit)
}

func fnUnique(list ref.Val) ref.Val {
	items, errv := listOf(list)
	if errv != nil {
		return types.NewErr("unique: %v", errv)
	}
	out := make([]ref.Val, 0, len(items))
next:
	for _, it := range items {
		for _, seen := range out {
			if eq, ok := seen.Equal(it).(types.Bool); ok && bool(eq) {
				continue next
			}
		}
		out = append(out, it)
	}
	return types.DefaultTypeAdapter.NativeToValue(out)
}

func fnInt64(v ref.Val) ref.Val {
	n, errv := integerArg(v, "int64")
	if errv != nil {
		return errv
	}
	if !n.IsInt64() {
		return types.NewErr("int64: %s overflows int64", n)
	}
	return types.Int(n.Int64())
}

func fnUint64(v ref.Val) ref.Val {
	n, errv := integerArg(v, "uint64")
	if errv != nil {
		return errv
	}
	if n.Sign() < 0 || !n.IsUint64() {
		return types.NewErr("uint64: %s is outside [0, 2^64-1]", n)
	}
	return types.Uint(n.Uint64())
}

// integerArg reads the argument of int64()/uint64(): integers as they are,
// doubles truncated toward zero (like CEL's int()), decimal strings exactly.
func integerArg(v ref.Val, fn string) (*big.Int, ref.Val) {
	switch x := v.(type) {
	case types.Int:
		return big.NewInt(int64(x)), nil
	case types.Uint:
		return new(big.Int).SetUint64(uint64(x)), nil
	case u256:
		return x.v, nil
	case i256:
		return x.v, nil
	case types.Double:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, types.NewErr("%s: %v is not a finite number", fn, f)
		}
		n, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
		return n, nil
	case types.String:
		n, err := parseIntegral(strings.TrimSpace(string(x)), false)
		if err != "" {
			return nil, types.NewErr("%s: %q is %s", fn, string(x), err)
		}
		return n, nil
	}
	return nil, types.NewErr("%s: no conversion from %s", fn, v.Type().TypeName())
}
