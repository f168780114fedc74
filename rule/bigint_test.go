package rule

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
)

const (
	max256 = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	max255 = "57896044618658097711785492504343953926634992332820282019728792003956564819967"  // 2^255-1
	min255 = "-57896044618658097711785492504343953926634992332820282019728792003956564819968" // -2^255
	big30  = "123456789012345678901234567890"
)

// bigEnv holds the values as evaluation presents them: declared uint256 /
// int256 inputs through celTyped, undeclared numbers through celValue.
func bigEnv(t *testing.T) map[string]any {
	t.Helper()
	typed := func(typ Type, v any) any {
		c, err := Cast(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return celTyped(typ, c)
	}
	return map[string]any{
		"U":    typed(TypeUint256, json.Number(big30)),
		"U42":  typed(TypeUint256, "42"),
		"U0":   typed(TypeUint256, 0),
		"UMax": typed(TypeUint256, max256),
		"I":    typed(TypeInt256, "-"+big30),
		"I42":  typed(TypeInt256, json.Number("-42")),
		"IMax": typed(TypeInt256, max255),
		"IMin": typed(TypeInt256, min255),
		"N":    int64(42),
		"M":    uint64(42),
		"D":    42.0,
		"F":    2.5,
		"NaN":  math.NaN(),
		"S":    "42",
		"X":    celValue(json.Number(big30), false), // undeclared: exact as well
		"Neg":  celValue(json.Number("-"+big30), false),
	}
}

func TestBigIntComparisons(t *testing.T) {
	env := bigEnv(t)
	var cases []helperCase
	// Every comparison, both operand orders, against int, uint, double and
	// the other big type: U42 (u256) and I42 (i256, -42) against 42 and -42.
	type pair struct {
		a, b string
		cmp  int // sign of a - b
	}
	pairs := []pair{
		{"[U42]", "42", 0}, {"[U42]", "[N]", 0}, {"[U42]", "42u", 0}, {"[U42]", "[M]", 0},
		{"[U42]", "42.0", 0}, {"[U42]", "[D]", 0}, {"[U42]", "41", 1}, {"[U42]", "43u", -1},
		{"[U42]", "42.5", -1}, {"[U42]", "-1", 1}, {"[U42]", "[I42]", 1}, {"[U42]", "[U]", -1},
		{"[I42]", "-42", 0}, {"[I42]", "0", -1}, {"[I42]", "0u", -1}, {"[I42]", "-42.5", 1},
		{"[I42]", "[I]", 1}, {"[U]", "[X]", 0}, {"[I]", "[Neg]", 0}, {"[U]", "9223372036854775807", 1},
		{"[UMax]", "[IMax]", 1}, {"[IMin]", "[U0]", -1}, {"[U0]", "0", 0}, {"[U0]", "[U42]", -1},
	}
	for _, p := range pairs {
		for _, order := range []struct {
			l, r string
			c    int
		}{{p.a, p.b, p.cmp}, {p.b, p.a, -p.cmp}} {
			for op, holds := range map[string]func(int) bool{
				"<":  func(c int) bool { return c < 0 },
				"<=": func(c int) bool { return c <= 0 },
				">":  func(c int) bool { return c > 0 },
				">=": func(c int) bool { return c >= 0 },
				"==": func(c int) bool { return c == 0 },
				"!=": func(c int) bool { return c != 0 },
			} {
				cases = append(cases, helperCase{order.l + " " + op + " " + order.r, holds(order.c), ""})
			}
		}
	}
	cases = append(cases,
		// NaN orders nothing and equals nothing.
		helperCase{"[U42] < [NaN]", false, ""}, helperCase{"[NaN] >= [U42]", false, ""},
		helperCase{"[U42] == [NaN]", false, ""}, helperCase{"[NaN] != [I42]", true, ""},
		// Equality with other kinds is false; ordering them is an error.
		helperCase{"[U42] == [S]", false, ""}, helperCase{"[S] != [U42]", true, ""},
		helperCase{"[U42] == null", false, ""}, helperCase{"[U42] < [S]", nil, "no such overload"},
		helperCase{"[S] < [U42]", nil, "no such overload"},
		// Inside lists, comprehensions and conditions.
		helperCase{"[[U42], [N]].all(x, x == 42)", true, ""},
		helperCase{"[U] > 0 ? 'pos' : 'zero'", "pos", ""},
		// Operators around rewritten ones are rewritten too, however deep.
		helperCase{"43 == 1 + (2 * (3 + [U42]) - 48)", true, ""},
		helperCase{"([U42] > 0 ? [U42] + 1 : 0) == 43", true, ""},
		helperCase{"[[U42] + 1][0] == 43", true, ""}, helperCase{"43 in [[U42] + 1]", true, ""},
		// Membership compares numerically, in both directions.
		helperCase{"42 in [[U42]]", true, ""}, helperCase{"[U42] in [1, 42]", true, ""},
		helperCase{"[I42] in [-42.0]", true, ""}, helperCase{"41 in [[U42], 'x']", false, ""},
		helperCase{"'k' in {'k': [U42]}", true, ""}, helperCase{"[U42] in [S]", nil, "no such overload"},
		// Standard CEL behaviour stays where no big integer takes part.
		helperCase{"[N] < [D]", false, ""}, helperCase{"[S] == '42'", true, ""},
		helperCase{"[N] == [M]", true, ""}, helperCase{"'a' < 'b'", true, ""},
	)
	runHelpers(t, env, cases)
}

func TestBigIntArithmetic(t *testing.T) {
	env := bigEnv(t)
	plus1, _ := new(big.Int).SetString(big30, 10)
	plus1.Add(plus1, big.NewInt(1))
	runHelpers(t, env, []helperCase{
		// u256 with int, uint, integral double, in both orders.
		{"[U42] + 1", "43", ""}, {"1 + [U42]", "43", ""},
		{"[U42] + 1u", "43", ""}, {"1u + [U42]", "43", ""},
		{"[U42] + 1.0", "43", ""}, {"1.0 + [U42]", "43", ""},
		{"[U42] - 2", "40", ""}, {"100 - [U42]", "58", ""},
		{"[U42] * 2", "84", ""}, {"2 * [U42]", "84", ""},
		{"[U42] / 5", "8", ""}, {"85 / [U42]", "2", ""},
		{"[U42] % 5", "2", ""}, {"85 % [U42]", "1", ""},
		{"[U] + 1", plus1.String(), ""}, {"1 + [X]", plus1.String(), ""},
		{"[U] * [U] / [U]", big30, ""},
		{"[U] - [X]", "0", ""},
		// i256.
		{"[I42] + 1", "-41", ""}, {"1 - [I42]", "43", ""}, {"[I42] * -2", "84", ""},
		{"[I42] / 5", "-8", ""}, {"[I42] % 5", "-2", ""}, {"-[I42]", "42", ""},
		{"[I] + [Neg]", "-246913578024691357802469135780", ""},
		// u256 with i256: i256 when it fits, else u256.
		{"[U42] + [I42]", "0", ""}, {"[I42] - [U42]", "-84", ""},
		{"[UMax] + [I42]", "115792089237316195423570985008687907853269984665640564039457584007913129639893", ""},
		{"-[U42]", "-42", ""},
		// Results are exact big integers: they compare and chain.
		{"[U42] + 1 == 43", true, ""}, {"43 == 1 + [U42]", true, ""},
		{"int([U42] + 1) + 1", int64(44), ""}, {"string([I42])", "-42", ""},
		{"double([U42]) / 4.0", 10.5, ""}, {"uint([U42])", uint64(42), ""},
		{"u256([I42] * -1)", "42", ""}, {"i256([U42]) - 50", "-8", ""}, {"int256('-7') + 7", "0", ""},
		// Overflow and underflow name the value and the range.
		{"[UMax] + 1", nil, "u256 overflow: " + max256 + " + 1 = "}, {"[UMax] + 1", nil, "is outside [0, 2^256-1]"},
		{"[U42] - 43", nil, "u256 overflow: 42 - 43 = -1 is outside [0, 2^256-1]"},
		{"0 - [U42]", nil, "u256 overflow: 0 - 42 = -42 is outside [0, 2^256-1]"},
		{"[U0] - 1u", nil, "u256 overflow"},
		{"[UMax] * 2", nil, "u256 overflow"},
		{"[IMax] + 1", nil, "i256 overflow: " + max255 + " + 1 = "},
		{"[IMin] - 1", nil, "is outside [-2^255, 2^255-1]"},
		{"-[IMin]", nil, "i256 overflow"},
		{"-[UMax]", nil, "i256 overflow"},
		{"[UMax] + [IMax] + [IMax]", nil, "is outside [-2^255, 2^256-1]"},
		// Division by zero, with every zero kind.
		{"[U42] / 0", nil, "division by zero"}, {"[U42] / [U0]", nil, "division by zero"},
		{"[I42] % 0u", nil, "modulus by zero"}, {"42 / [U0]", nil, "division by zero"},
		{"[U42] / 0.0", nil, "division by zero"},
		// Doubles join only when integral; other kinds not at all.
		{"[U42] * 1.5", nil, "cannot take part in exact integer arithmetic"},
		{"[F] + [U42]", nil, "cannot take part in exact integer arithmetic"},
		{"[U42] + [NaN]", nil, "cannot take part"},
		{"[U42] + 'a'", nil, "no such overload"}, {"'a' + [U42]", nil, "no such overload"},
	})
}

// Mixed int / uint / double operators: undeclared JSON numbers are ints
// when integral, so they must mix with doubles (2 and 2.0 are one JSON
// number), and int with uint exactly.
func TestMixedNumericOperators(t *testing.T) {
	env := map[string]any{"N": int64(7), "M": uint64(2), "D": 2.0, "Big": uint64(math.MaxUint64), "Neg": int64(-1)}
	runHelpers(t, env, []helperCase{
		{"[N] * 1.5", 10.5, ""}, {"1.5 * [N]", 10.5, ""}, {"[N] / [D]", 3.5, ""}, {"[D] - [M]", 0.0, ""},
		{"[N] + 1", int64(8), ""}, {"[N] / 2", int64(3), ""},
		{"[N] + [M]", uint64(9), ""}, {"[M] - [N]", int64(-5), ""}, {"[N] % [M]", uint64(1), ""},
		{"[Big] + [Neg]", uint64(math.MaxUint64 - 1), ""},
		{"[Big] + 1", nil, "integer overflow"}, {"[M] / 0", nil, "division by zero"},
		{"[N] % [D]", nil, "% takes integers"},
		{"[N] < [D]", false, ""}, {"[M] == 2.0", true, ""},
		// Statically typed operands keep CEL's compile-time checks.
		{"1 + 2.0", nil, "found no matching overload"},
	})
}
