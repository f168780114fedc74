package rule

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Payloads decoded with json.Number reach the output exactly, whether the
// keys are declared (int64 / uint64 / uint256) or not.
func TestEvalExactNumbers(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {
    "d53": {"type": "int64"}, "du64": {"type": "uint64"}, "du256": {"type": "uint256"}
  },
  "rules": [
    "[n53] == 9007199254740993", "[d53] == 9007199254740993", "[n53] != 9007199254740992",
    "[u64] == 18446744073709551615u", "[du64] == [u64]", "18446744073709551615u == [du64]",
    "[u256] > 18446744073709551615u", "[du256] == [u256]", "[u256] == [du256]", "[du256] > 0", "0 < [du256]"
  ],
  "onValid": {"payload": {
    "n53": "[n53]", "u64": "[u64]", "u256": "[u256]",
    "d53": "[d53]", "du64": "[du64]", "du256": "[du256]"
  }}
}`))
	in := map[string]any{
		"n53": json.Number("9007199254740993"), "u64": json.Number("18446744073709551615"), "u256": json.Number("123456789012345678901234567890"),
		"d53": json.Number("9007199254740993"), "du64": json.Number("18446744073709551615"), "du256": json.Number("123456789012345678901234567890"),
	}
	r := eval(t, d, in, Sources{})
	if !r.Valid {
		t.Fatalf("rules: %+v", r.Reasons)
	}
	got, err := json.Marshal(r.Output)
	if err != nil {
		t.Fatal(err)
	}
	// Undeclared numbers pass through as the numbers they are; a declared
	// uint256 is its canonical decimal string (spec §10).
	want := `{"d53":9007199254740993,"du256":"123456789012345678901234567890","du64":18446744073709551615,` +
		`"n53":9007199254740993,"u256":123456789012345678901234567890,"u64":18446744073709551615}`
	if string(got) != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
	if r.Output["n53"] != int64(9007199254740993) || r.Output["u64"] != uint64(18446744073709551615) || r.Output["du64"] != uint64(18446744073709551615) {
		t.Errorf("Go types: %#v", r.Output)
	}
	if r.Inputs["u256"] != json.Number("123456789012345678901234567890") || r.Inputs["du256"] != "123456789012345678901234567890" {
		t.Errorf("inputs: %#v", r.Inputs)
	}
}

// Every way a value can leave a rule keeps it exact.
func TestEvalExactPaths(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"Amount": {"type": "uint256"}, "Delta": {"type": "int256", "default": "-5"}},
  "rules": ["[Amount] + [Delta] > [Amount] - 6"],
  "onValid": {"payload": {
    "sum": "[Amount] + 1",
    "neg": "[Delta] * [Amount]",
    "big1": "[Big] + 1",
    "memo": "amount=[Amount] big=[Big] frac=[Frac] neg=[Neg] huge=[Huge]",
    "frac": "[Frac]",
    "fracCEL": "[Frac] * 2.0",
    "neg2": "[Neg]",
    "negCmp": "[Neg] < 0",
    "huge": "[Huge]",
    "whole": "[Whole]",
    "wholeDiv": "[Whole] / 5",
    "obj": "[Obj]",
    "objSel": "([Obj].n + 1)",
    "delta": "[Delta]"
  }}
}`))
	in := map[string]any{
		"Amount": json.Number("340282366920938463463374607431768211456"), // 2^128
		"Big":    json.Number("18446744073709551616"),                    // 2^64: beyond uint64
		"Frac":   json.Number("0.10000000000000000001"),
		"Neg":    json.Number("-123456789012345678901234567890"),
		"Huge":   json.Number("1" + strings.Repeat("0", 80)), // beyond 256 bits
		"Whole":  json.Number("42.0"),
		"Obj":    map[string]any{"n": json.Number("99999999999999999999"), "l": []any{json.Number("1.50")}},
	}
	r := eval(t, d, in, Sources{})
	if !r.Valid {
		t.Fatalf("rules: %+v", r.Reasons)
	}
	want := map[string]any{
		"sum":      "340282366920938463463374607431768211457",
		"neg":      "-1701411834604692317316873037158841057280",
		"big1":     "18446744073709551617",
		"memo":     "amount=340282366920938463463374607431768211456 big=18446744073709551616 frac=0.10000000000000000001 neg=-123456789012345678901234567890 huge=1" + strings.Repeat("0", 80),
		"frac":     json.Number("0.10000000000000000001"),
		"fracCEL":  0.2,
		"neg2":     json.Number("-123456789012345678901234567890"),
		"negCmp":   true,
		"huge":     json.Number("1" + strings.Repeat("0", 80)),
		"whole":    int64(42),
		"wholeDiv": 8.4, // undeclared numbers are doubles in expressions (expression guide §6.1)
		"obj":      map[string]any{"n": json.Number("99999999999999999999"), "l": []any{json.Number("1.50")}},
		"objSel":   "100000000000000000000",
		"delta":    "-5",
	}
	if !reflect.DeepEqual(r.Output, want) {
		t.Errorf("output\n got %#v\nwant %#v", r.Output, want)
	}
	// A pass-through shares nothing with the input.
	r.Output["obj"].(map[string]any)["n"] = "changed"
	if in["Obj"].(map[string]any)["n"] != json.Number("99999999999999999999") {
		t.Error("the output aliases the input payload")
	}
	// An overflow is a hard error naming the value and the range.
	hardError(t, d, map[string]any{"Amount": json.Number(max256), "Big": 1, "Frac": 1, "Neg": 1, "Huge": 1, "Whole": 1, "Obj": map[string]any{"n": 1}},
		Sources{}, "outcome", "onValid.payload.sum", "u256 overflow: "+max256+" + 1 = ")
}

// API responses: numbers are doubles (expression guide §6.1) except
// integers a double cannot hold, which stay exact; typed extracts and
// contract reads of uint256 are big integers in rules.
func TestEvalExactSources(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {},
  "apiCalls": [{"name": "b", "method": "GET", "urlTemplate": "https://e.org/b", "contentType": "json",
    "extractMap": {
      "Bal":   {"type": "uint256", "expr": "resp.bal"},
      "Raw":   "resp.bal",
      "Half":  {"type": "double", "expr": "resp.small / 2"},
      "Id":    {"type": "uint64", "expr": "resp.id"}
    }}],
  "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "f()(uint256)",
    "saveAs": {"0": {"key": "readValue", "type": "uint256"}}}],
  "rules": ["[readValue] == 42", "42 == [readValue]", "[readValue] != 41", "[Bal] > 1000", "[Raw] == [Bal]", "[Raw] - 1 < [Bal]"],
  "onValid": {"payload": {"bal": "[Bal]", "raw": "[Raw]", "half": "[Half]", "id": "[Id]", "read": "[readValue]", "readPlus": "[readValue] + 1"}}
}`))
	src := Sources{
		API:   StaticAPI{"b": {Status: 200, Body: []byte(`{"bal": 123456789012345678901234567890, "small": 7, "id": 18446744073709551615}`)}},
		Reads: StaticReads{0: {"42"}},
	}
	r := eval(t, d, nil, src)
	if !r.Valid {
		t.Fatalf("rules: %+v", r.Reasons)
	}
	want := map[string]any{"bal": "123456789012345678901234567890", "raw": "123456789012345678901234567890", "half": 3.5,
		"id": uint64(18446744073709551615), "read": "42", "readPlus": "43"}
	if !reflect.DeepEqual(r.Output, want) {
		t.Errorf("output\n got %#v\nwant %#v", r.Output, want)
	}
}

// The example bundle's "[totalAmount] > 0" over a uint256 input.
func TestEvalUint256Rules(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"totalAmount": {"type": "uint256"}, "cap": {"type": "uint256", "default": "1000000000000000000000000"}},
  "rules": ["[totalAmount] > 0", "0 < [totalAmount]", "[totalAmount] <= [cap]", "[totalAmount] % 100 == 0"],
  "onValid": {"payload": {"totalAmount": "[totalAmount]", "rest": "[cap] - [totalAmount]"}}
}`))
	r := eval(t, d, map[string]any{"totalAmount": json.Number("19900")}, Sources{})
	if !r.Valid || r.Output["totalAmount"] != "19900" || r.Output["rest"] != "999999999999999999980100" {
		t.Errorf("19900: %+v", r)
	}
	r = eval(t, d, map[string]any{"totalAmount": "0"}, Sources{})
	if r.Valid || !hasReason(r, ReasonRuleFalse, "rules[0]") || !hasReason(r, ReasonRuleFalse, "rules[1]") {
		t.Errorf("0: %+v", r)
	}
}
