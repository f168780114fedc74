package rule

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
)

type castCase struct {
	in   any
	want any    // expected canonical value when err == ""
	err  string // substring of the error, "" for success
}

func runCasts(t *testing.T, typ Type, cases []castCase) {
	t.Helper()
	for _, c := range cases {
		got, err := Cast(typ, c.in)
		if c.err != "" {
			var ce *CastError
			if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Cast(%s, %#v) = %#v, %v; want error containing %q", typ, c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Cast(%s, %#v) = %#v (%T), %v; want %#v (%T)", typ, c.in, got, got, err, c.want, c.want)
		}
	}
}

func TestTypeNames(t *testing.T) {
	names := strings.Split(xrcTypeList, ", ")
	if len(names) != 14 {
		t.Fatalf("%d type names, want the 14 XRC types", len(names))
	}
	for _, n := range names {
		typ, ok := ParseType(n)
		if !ok || typ.String() != n {
			t.Errorf("ParseType(%q) = %v, %v", n, typ, ok)
		}
	}
	for _, bad := range []string{"", "int", "Int64", "number", "invalid", "uint"} {
		if _, ok := ParseType(bad); ok {
			t.Errorf("ParseType(%q) accepted", bad)
		}
	}
}

func TestCastString(t *testing.T) {
	runCasts(t, TypeString, []castCase{
		{"hello", "hello", ""},
		{"", "", ""},
		{true, "true", ""},
		{json.Number("12.50"), "12.50", ""},
		{int64(-3), "-3", ""},
		{0.1, "0.1", ""},
		{nil, nil, "null"},
		{[]any{1}, nil, "only text"},
		{math.NaN(), nil, "finite"},
	})
}

func TestCastBool(t *testing.T) {
	runCasts(t, TypeBool, []castCase{
		{true, true, ""},
		{false, false, ""},
		{"true", true, ""},
		{"false", false, ""},
		{json.Number("0"), false, ""},
		{json.Number("1"), true, ""},
		{json.Number("-2.5"), true, ""},
		{0.0, false, ""},
		{int64(7), true, ""},
		{uint64(0), false, ""},
		{"yes", nil, `"true" and "false"`},
		{"TRUE", nil, `"true" and "false"`},
		{"1", nil, `"true" and "false"`},
		{math.NaN(), nil, "NaN"},
		{map[string]any{}, nil, "convert to bool"},
	})
}

func TestCastInt64(t *testing.T) {
	runCasts(t, TypeInt64, []castCase{
		{json.Number("42"), int64(42), ""},
		{json.Number("42.0"), int64(42), ""},
		{json.Number("4.2e1"), int64(42), ""},
		{json.Number("-9223372036854775808"), int64(math.MinInt64), ""},
		{json.Number("9223372036854775807"), int64(math.MaxInt64), ""},
		{json.Number("9223372036854775808"), nil, "out of range"},
		{json.Number("1e30"), nil, "out of range"},
		{json.Number("1e99999"), nil, "not a whole decimal"},
		{json.Number("42.5"), nil, "not a whole number"},
		{"42", int64(42), ""},
		{"-17", int64(-17), ""},
		{"+5", int64(5), ""},
		{"42.0", int64(42), ""},
		{"4.2e1", nil, "not a whole decimal"},
		{"0x10", nil, "not a whole decimal"},
		{" 4", nil, "not a whole decimal"},
		{"", nil, "not a whole decimal"},
		{42.0, int64(42), ""},
		{42.5, nil, "not a whole number"},
		{9.3e18, nil, "out of range"},
		{math.Inf(1), nil, "finite"},
		{uint64(math.MaxUint64), nil, "out of range"},
		{int(7), int64(7), ""},
		{true, nil, "booleans"},
		{nil, nil, "null"},
	})
}

func TestCastUint64AndTimes(t *testing.T) {
	for _, typ := range []Type{TypeUint64, TypeTimestampMs, TypeDurationMs} {
		runCasts(t, typ, []castCase{
			{json.Number("0"), uint64(0), ""},
			{json.Number("18446744073709551615"), uint64(math.MaxUint64), ""},
			{json.Number("18446744073709551616"), nil, "out of range"},
			{json.Number("-1"), nil, "out of range"},
			{"1700000000000", uint64(1700000000000), ""},
			{1.7e12, uint64(1.7e12), ""},
			{math.Copysign(0, -1), uint64(0), ""},
			{"1.5", nil, "not a whole number"},
			{int64(-5), nil, "out of range"},
			{false, nil, "booleans"},
		})
	}
}

func TestCastInt256(t *testing.T) {
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
	min := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 255))
	runCasts(t, TypeInt256, []castCase{
		{json.Number("0"), "0", ""},
		{"-0", "0", ""},
		{"000123", "123", ""},
		{"-123456789012345678901234567890", "-123456789012345678901234567890", ""},
		{max.String(), max.String(), ""},
		{min.String(), min.String(), ""},
		{new(big.Int).Add(max, big.NewInt(1)).String(), nil, "out of range"},
		{new(big.Int).Sub(min, big.NewInt(1)).String(), nil, "out of range"},
		{json.Number("1e20"), "100000000000000000000", ""},
		{1e20, "100000000000000000000", ""},
		{int64(-5), "-5", ""},
		{big.NewInt(77), "77", ""},
		{"12.5", nil, "not a whole number"},
		{"abc", nil, "not a whole decimal"},
	})
}

func TestCastUint256(t *testing.T) {
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	runCasts(t, TypeUint256, []castCase{
		{json.Number("0"), "0", ""},
		{"1000000000000000000000000", "1000000000000000000000000", ""},
		{max.String(), max.String(), ""},
		{new(big.Int).Add(max, big.NewInt(1)).String(), nil, "out of range"},
		{"-1", nil, "out of range"},
		{uint64(math.MaxUint64), "18446744073709551615", ""},
		{json.Number("2.0"), "2", ""},
		{true, nil, "booleans"},
	})
}

func TestCastDouble(t *testing.T) {
	runCasts(t, TypeDouble, []castCase{
		{json.Number("0"), 0.0, ""},
		{json.Number("0.2"), 0.2, ""},
		{json.Number("-1.5e3"), -1500.0, ""},
		{"67000.12", 67000.12, ""},
		{"1e-3", 0.001, ""},
		{".5", 0.5, ""},
		{int64(3), 3.0, ""},
		{uint64(4), 4.0, ""},
		{1.25, 1.25, ""},
		{"NaN", nil, "not a decimal"},
		{"Inf", nil, "not a decimal"},
		{"0x1p-2", nil, "not a decimal"},
		{"1e400", nil, "out of the range"},
		{"", nil, "not a decimal"},
		{math.Inf(-1), nil, "finite"},
		{false, nil, "booleans"},
	})
}

func TestCastDecimal(t *testing.T) {
	runCasts(t, TypeDecimal, []castCase{
		{"12.3400", "12.3400", ""},
		{"-0.001", "-0.001", ""},
		{json.Number("1.10"), "1.10", ""},
		{0.1, "0.1", ""},
		{int64(12), "12", ""},
		{"1,5", nil, "not a decimal"},
		{"twelve", nil, "not a decimal"},
		{true, nil, "booleans"},
	})
}

func TestCastUUID(t *testing.T) {
	runCasts(t, TypeUUID, []castCase{
		{"123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000", ""},
		{"123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000", ""},
		{"123e4567e89b12d3a456426614174000", nil, "canonical UUID"},
		{"{123e4567-e89b-12d3-a456-426614174000}", nil, "canonical UUID"},
		{"123e4567-e89b-12d3-a456-42661417400g", nil, "canonical UUID"},
		{json.Number("1"), nil, "canonical UUID"},
	})
}

func TestCastAddress(t *testing.T) {
	runCasts(t, TypeAddress, []castCase{
		{"0x1111111111111111111111111111111111111111", "0x1111111111111111111111111111111111111111", ""},
		{"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", ""},
		{"0x111111111111111111111111111111111111111", nil, "40 hex"},
		{"1111111111111111111111111111111111111111", nil, "40 hex"},
		{"0x111111111111111111111111111111111111111g", nil, "40 hex"},
		{json.Number("1"), nil, "40 hex"},
	})
}

func TestCastBytes(t *testing.T) {
	runCasts(t, TypeBytes, []castCase{
		{"0x", "0x", ""},
		{"0xDEADbeef", "0xdeadbeef", ""},
		{[]byte{1, 2}, "0x0102", ""},
		{"0xabc", nil, "odd number"},
		{"0xzz", nil, "invalid hex"},
		{"deadbeef", nil, "0x-prefixed"},
		{json.Number("1"), nil, "0x-prefixed"},
	})
	full := "0x" + strings.Repeat("ab", 32)
	runCasts(t, TypeBytes32, []castCase{
		{full, full, ""},
		{strings.ToUpper(full[:2]) + strings.Repeat("AB", 32), full, ""},
		{[32]byte{}, "0x" + strings.Repeat("00", 32), ""},
		{"0x" + strings.Repeat("ab", 31), nil, "31 bytes"},
		{"0x" + strings.Repeat("ab", 33), nil, "33 bytes"},
	})
}

func TestFormatFloat(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 0.1: "0.1", 67000.12: "67000.12", 1e21: "1e+21", -2.5: "-2.5", 1e-7: "1e-07", 3: "3"} {
		if got := FormatFloat(f); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

// json.Number casts never take a detour through float64.
func TestCastJSONNumbersExactly(t *testing.T) {
	runCasts(t, TypeInt64, []castCase{
		{json.Number("9007199254740993"), int64(9007199254740993), ""},
		{json.Number("-9007199254740993"), int64(-9007199254740993), ""},
		{json.Number("9.007199254740993e15"), int64(9007199254740993), ""},
	})
	runCasts(t, TypeUint64, []castCase{
		{json.Number("18446744073709551615"), uint64(math.MaxUint64), ""},
		{json.Number("18446744073709551615.0"), uint64(math.MaxUint64), ""},
		{json.Number("18446744073709551616"), nil, "out of range"},
	})
	runCasts(t, TypeUint256, []castCase{
		{json.Number("123456789012345678901234567890"), "123456789012345678901234567890", ""},
		{json.Number("1.23456789012345678901234567891e29"), "123456789012345678901234567891", ""},
		{u256{v: big.NewInt(7)}, "7", ""},
	})
	runCasts(t, TypeInt256, []castCase{
		{json.Number("-123456789012345678901234567890"), "-123456789012345678901234567890", ""},
		{i256{v: big.NewInt(-7)}, "-7", ""},
	})
	runCasts(t, TypeDecimal, []castCase{
		{json.Number("0.10000000000000000001"), "0.10000000000000000001", ""},
	})
	runCasts(t, TypeString, []castCase{
		{json.Number("123456789012345678901234567890"), "123456789012345678901234567890", ""},
	})
	runCasts(t, TypeBool, []castCase{
		{json.Number("1e-400"), true, ""}, // underflows a double, yet is not zero
		{json.Number("0.0e5"), false, ""},
		{json.Number("-0"), false, ""},
		{json.Number("NaN"), nil, "not a number"},
	})
}

// normalize keeps undeclared numbers exact: integers as int64 / uint64
// where they fit, the decimal text otherwise; celValue gives expressions
// exact big integers for integers up to 256 bits.
func TestNormalizeNumbers(t *testing.T) {
	for _, c := range []struct {
		in       json.Number
		out, cel any
	}{
		{"42", int64(42), int64(42)},
		{"-42", int64(-42), int64(-42)},
		{"42.0", int64(42), int64(42)},
		{"4.2e1", int64(42), int64(42)},
		{"9223372036854775808", uint64(9223372036854775808), uint64(9223372036854775808)},
		{"18446744073709551616", json.Number("18446744073709551616"), "u256 18446744073709551616"},
		{"-9223372036854775809", json.Number("-9223372036854775809"), "i256 -9223372036854775809"},
		{json.Number(max256), json.Number(max256), "u256 " + max256},
		{"0.5", json.Number("0.5"), 0.5},
		{"1e400", json.Number("1e400"), math.Inf(1)},
	} {
		out, err := normalize(c.in)
		if err != nil || out != c.out {
			t.Errorf("normalize(%s) = %#v, %v; want %#v", c.in, out, err, c.out)
			continue
		}
		cel := celValue(out, false)
		if s, ok := c.cel.(string); ok {
			cel = describeValue(cel)
			if cel != s {
				t.Errorf("celValue(%s) = %v, want %s", c.in, cel, s)
			}
			continue
		}
		if cel != c.cel {
			t.Errorf("celValue(%s) = %#v, want %#v", c.in, cel, c.cel)
		}
	}
	if _, err := normalize(json.Number("0x10")); err == nil {
		t.Error("hex json.Number accepted")
	}
}
