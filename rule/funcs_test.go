package rule

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
)

// helperCase evaluates one expression against env; want is compared exactly
// except for float64, which must be within 1e-9 (relative).
type helperCase struct {
	expr string
	want any
	err  string // substring of a hard error
}

func evalCase(t *testing.T, env map[string]any, c helperCase) {
	t.Helper()
	e, err := CompileExpr(c.expr)
	if err != nil {
		if c.err != "" && strings.Contains(err.Error(), c.err) {
			return
		}
		t.Errorf("%s: compile: %v", c.expr, err)
		return
	}
	got, err := e.Eval(context.Background(), env)
	if c.err != "" {
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s = %#v, %v; want error containing %q", c.expr, got, err, c.err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", c.expr, err)
		return
	}
	if w, ok := c.want.(float64); ok {
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s = %#v (%T), want %v", c.expr, got, got, w)
		}
		return
	}
	if !reflect.DeepEqual(got, c.want) {
		t.Errorf("%s = %#v (%T), want %#v (%T)", c.expr, got, got, c.want, c.want)
	}
}

func runHelpers(t *testing.T, env map[string]any, cases []helperCase) {
	t.Helper()
	for _, c := range cases {
		evalCase(t, env, c)
	}
}

func TestHelperAbs(t *testing.T) {
	runHelpers(t, map[string]any{"N": math.NaN(), "S": "x"}, []helperCase{
		{"abs(-5)", 5.0, ""},
		{"abs(double(-3.2))", 3.2, ""},
		{"abs(7u)", 7.0, ""},
		{"abs(-5) == 5", true, ""},
		{"abs([S])", nil, "expects a number"},
		{"abs([N])", nil, "not a finite number"},
		{"abs(1, 2)", nil, "found no matching overload"},
	})
}

func TestHelperPow(t *testing.T) {
	runHelpers(t, map[string]any{"X": 3.0, "S": "x"}, []helperCase{
		{"pow(2, 10)", 1024.0, ""},
		{"pow(double([X]), 2)", 9.0, ""},
		{"pow(-1.0, 3.0)", -1.0, ""},
		{"pow([S], 2)", 0.0, ""},
		{"pow(2, true)", 0.0, ""},
	})
}

func TestHelperRelDiff(t *testing.T) {
	runHelpers(t, map[string]any{"S": "x"}, []helperCase{
		{"relDiff(100.0, 101.0)", 1.0 / 100.5, ""},
		{"relDiff(0.0, 0.0)", 0.0, ""},
		{"relDiff(0.0, 1.0)", 1e18, ""},
		{"relDiff(-1.0, 1.0)", 1e18, ""},
		{"relDiff(100, 100u)", 0.0, ""},
		{"relDiff([S], 1.0)", nil, "expects numbers"},
	})
}

func TestHelperSafeDiv(t *testing.T) {
	runHelpers(t, map[string]any{"X": "a", "Y": 2.0}, []helperCase{
		{"safeDiv(10.0, 2.0, 0.0)", 5.0, ""},
		{"safeDiv(10.0, 0.0, 0.0)", 0.0, ""},
		{"safeDiv([X], [Y], 0.0)", 0.0, ""},
		{"safeDiv(7, 2, 0.0)", 3.5, ""},
		{"safeDiv(1, 0, \"n/a\")", "n/a", ""},
	})
}

func TestHelperClamp(t *testing.T) {
	runHelpers(t, nil, []helperCase{
		{"clamp(5.0, 0.0, 10.0)", 5.0, ""},
		{"clamp(-1.0, 0.0, 10.0)", 0.0, ""},
		{"clamp(99.0, 0.0, 10.0)", 10.0, ""},
		{"clamp(99.0, 10.0, 0.0)", 10.0, ""},
		{"clamp(3, 0, 10)", 3.0, ""},
		{"clamp(\"a\", 0.0, 1.0)", "a", ""},
		{"clamp(5, \"lo\", 1.0)", int64(5), ""},
	})
}

func TestHelperDistWithin(t *testing.T) {
	long := strings.Repeat("a", 257)
	runHelpers(t, map[string]any{"Long": long}, []helperCase{
		{`dist("rel", 100.0, 101.0)`, 1.0 / 100.5, ""},
		{`dist("", 100.0, 101.0)`, 1.0 / 100.5, ""},
		{`dist("RelDiff", 100.0, 101.0)`, 1.0 / 100.5, ""},
		{`dist("abs", 100.0, 101.0)`, 1.0, ""},
		{`dist("absolute", 1, 4)`, 3.0, ""},
		{`dist("eq", "CB", "CB")`, 0.0, ""},
		{`dist("equal", 1, 2)`, 1.0, ""},
		{`dist("ham", "ABC", "ABD")`, 1.0 / 3, ""},
		{`dist("hamming", "AB", "ABC")`, 1e18, ""},
		{`dist("hamming", "", "")`, 0.0, ""},
		{`dist("lev", "kitten", "sitting")`, 3.0 / 7, ""},
		{`dist("levenshtein", "", "")`, 0.0, ""},
		{`dist("lev", [Long], "a")`, 1e18, ""},
		{`dist("cosine", 1.0, 2.0)`, nil, "unsupported metric"},
		{`dist(1, 1.0, 2.0)`, nil, "metric must be string"},
		{`dist("rel", "a", "b")`, nil, "metric expects numeric"},
		{`dist("lev", 1, 2)`, nil, "metric expects strings"},
		{`within("rel", 100.0, 101.0, 0.01)`, true, ""},
		{`within("rel", 100.0, 102.0, 0.01)`, false, ""},
		{`within("eq", "CB", "CB", 0.0)`, true, ""},
		{`within("eq", "CB", "CG", 0.0)`, false, ""},
		{`within("hamming", "ABC", "ABD", 0.0)`, false, ""},
		{`within("hamming", "ABC", "ABD", 0.34)`, true, ""},
		{`within("rel", 1.0, 1.0, -0.1)`, nil, "tol must be >= 0"},
		{`within("rel", 1.0, 1.0, "x")`, nil, "tol must be >= 0"},
	})
}

func TestHelperLists(t *testing.T) {
	big := make([]any, MaxListCap+1)
	for i := range big {
		big[i] = float64(i)
	}
	env := map[string]any{"Big": big, "Mixed": []any{1.0, "x"}}
	runHelpers(t, env, []helperCase{
		{"max([1.0, 5.0, 2.0])", 5.0, ""},
		{"min([1.0, 5.0, 2.0])", 1.0, ""},
		{"sum([1.0, 5.0, 2.0])", 8.0, ""},
		{"avg([1.0, 5.0, 2.0])", 8.0 / 3, ""},
		{"max([1, 5u, 2.5])", 5.0, ""},
		{"median([1.0, 9.0, 3.0])", 3.0, ""},
		{"median([1.0, 9.0, 3.0, 7.0])", 5.0, ""},
		{"stdev([10.0, 10.0, 10.0])", 0.0, ""},
		{"stdev([10.0, 12.0, 8.0])", math.Sqrt(8.0 / 3), ""},
		{"stdev([4.0])", 0.0, ""},
		{"cv([100.0, 101.0, 99.5]) < 0.01", true, ""},
		{"cv([-1.0, 1.0])", 0.0, ""},
		{"mad([100.0, 101.0, 99.5, 500.0])", 0.75, ""},
		{"max([])", 0.0, ""},
		{"avg([Mixed])", 0.0, ""},
		{"sum(5)", 0.0, ""},
		{"max([Big])", nil, "MaxListCap"},
		{`join([1, "a", true, 2.5], "-")`, "1-a-true-2.5", ""},
		{`join([], ",")`, "", ""},
		{`join("ab", ",")`, nil, "expects a list"},
		{`join([1], 2)`, nil, "separator must be string"},
		{"unique([1, 2, 1, 3, 2])", []any{int64(1), int64(2), int64(3)}, ""},
		{`unique(["b", "a", "b"])`, []any{"b", "a"}, ""},
		{"unique(5)", nil, "expects a list"},
	})
}

func TestHelperQuorumConsensus(t *testing.T) {
	env := map[string]any{
		"FetchedCoinbase": 100.0, "FetchedBitstamp": 100.5, "FetchedGecko": 150.0,
		"PrevPrice": 0.0, "MaxDeltaPct": 0.2,
		"SourceA": "CB", "SourceB": "CB", "SourceC": "CG",
	}
	runHelpers(t, env, []helperCase{
		// Guide example 1: numeric price feed, 2-of-3 within 1%.
		{`quorum([FetchedCoinbase, FetchedBitstamp, FetchedGecko], "rel", 0.01, 2)`, true, ""},
		{`consensus([FetchedCoinbase, FetchedBitstamp, FetchedGecko], "rel", "medoid", 0.01, 2)`, 100.0, ""},
		{`consensus([[FetchedCoinbase],[FetchedBitstamp],[FetchedGecko]], "rel", "ball", "mean", 0.01, 2)`, 100.25, ""},
		{`consensus([FetchedCoinbase, FetchedBitstamp, FetchedGecko], "rel", "median", 0.01, 2)`, 100.25, ""},
		{`quorum([FetchedCoinbase, FetchedBitstamp, FetchedGecko], "rel", 0.01, 3)`, false, ""},
		{`consensus([FetchedCoinbase, FetchedBitstamp, FetchedGecko], "rel", "mean", 0.01, 3)`, 0.0, ""},
		// Guide example 2: guardrail against the previous price.
		{`(PrevPrice == 0.0) || (relDiff(consensus([FetchedCoinbase, FetchedBitstamp, FetchedGecko], "rel", "mean", 0.01, 2), PrevPrice) <= MaxDeltaPct)`, true, ""},
		// Guide example 3: string agreement, 2-of-3 equal.
		{`quorum([SourceA, SourceB, SourceC], "eq", 0.0, 2)`, true, ""},
		{`consensus([SourceA, SourceB, SourceC], "eq", "mode", 0.0, 2)`, "CB", ""},
		// Guide example 4: hamming quorum.
		{`consensus(["ABC", "ABD", "XYZ"], "hamming", "ball", "medoid", 0.34, 2)`, "ABC", ""},
		{`quorum(["ABC", "ABD", "XYZ"], "hamming", 0.0, 2)`, false, ""},
		// Modes: a chain 1.0 - 1.5 - 2.0 within 0.6 is one ball of 3 but no clique of 3.
		{`quorum([1.0, 1.5, 2.0], "abs", "ball", 0.6, 3)`, true, ""},
		{`quorum([1.0, 1.5, 2.0], "abs", "pairwise", 0.6, 3)`, false, ""},
		{`quorum([1.0, 1.5, 2.0], "abs", "clique", 0.6, 2)`, true, ""},
		{`consensus([1.0, 1.5, 2.0], "abs", "ball", "medoid", 0.6, 3)`, 1.5, ""},
		// A zero (a failed source's default) is far from everything.
		{`quorum([0.0, 100.0, 150.0], "rel", 0.01, 2)`, false, ""},
		{`quorum([], "rel", 0.01, 1)`, false, ""},
		{`consensus([], "rel", "mean", 0.01, 1)`, 0.0, ""},
		{`quorum([1.0], "rel", 0.01, 1.9)`, true, ""},
		// Hard errors.
		{`quorum(5, "rel", 0.01, 2)`, nil, "expects a list"},
		{`quorum([1.0], 1, 0.01, 2)`, nil, "metric must be string"},
		{`quorum([1.0], "rel", -0.01, 2)`, nil, "tol must be >= 0"},
		{`quorum([1.0], "rel", 0.01, 0)`, nil, "k must be >= 1"},
		{`quorum([1.0], "rel", "nope", 0.01, 1)`, nil, "unsupported mode"},
		{`quorum(["a", "b"], "rel", 0.01, 1)`, nil, "metric expects numeric"},
		{`consensus([1.0], "rel", "nope", 0.01, 1)`, nil, "unsupported agg"},
		{`consensus([1.0], "rel", 7, 0.01, 1)`, nil, "agg must be string"},
		{`consensus(["a", "a"], "eq", "mean", 0.0, 2)`, nil, "expects numeric"},
		{`quorum([1.0], "rel", 0.01)`, nil, "found no matching overload"},
	})
}

func TestHelperIntegers(t *testing.T) {
	max256 := "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	runHelpers(t, map[string]any{"Max": max256, "Wei": "1000000000000000000000", "Seq": 4.0}, []helperCase{
		{"int64([Seq]) + 1", int64(5), ""},
		{`int64("42")`, int64(42), ""},
		{"int64(2.9)", int64(2), ""},
		{"int64(-2.9)", int64(-2), ""},
		{"int64(9223372036854775807u)", int64(math.MaxInt64), ""},
		{"int64(9223372036854775808u)", nil, "overflows int64"},
		{"int64(1e19)", nil, "overflows int64"},
		{`int64("4.5")`, nil, "not a whole number"},
		{"int64(true)", nil, "no conversion"},
		{"uint64(5)", uint64(5), ""},
		{`uint64("18446744073709551615")`, uint64(math.MaxUint64), ""},
		{"uint64(-1)", nil, "outside [0, 2^64-1]"},
		{"u256([Wei]) + 1", "1000000000000000000001", ""},
		{"uint256([Wei]) * 2 > u256([Wei])", true, ""},
		{"u256([Wei]) > 5", true, ""},
		{"u256([Wei]) == u256(\"0x3635c9adc5dea00000\")", true, ""},
		{`u256("1000") / 3`, "333", ""},
		{`u256("1000") % 3`, "1", ""},
		{`string(u256(7)) == "7"`, true, ""},
		{"int(u256(7)) + 1", int64(8), ""},
		{"u256([Max])", max256, ""},
		{"u256([Max]) + 1", nil, "u256 overflow"},
		{"u256(5) - 6", nil, "u256 overflow"},
		{"u256(-1)", nil, "u256 overflow"},
		{`u256("1") / 0`, nil, "division by zero"},
		{`u256("x")`, nil, "not a whole decimal"},
		{`u256(1) + "a"`, nil, "no such overload"},
		{`"Hello".lowerAscii() + "x".upperAscii()`, "helloX", ""},
		{"12345678901234567890", "12345678901234567890", ""},
	})
}
