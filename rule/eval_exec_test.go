package rule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

const execTarget = "0x2222222222222222222222222222222222222222"

// execDoc is a document whose onValid branch executes fn with args (JSON
// array text) and value (JSON object text or "").
func execDoc(t *testing.T, fn, args, value string) *Document {
	t.Helper()
	x := `"to": "` + execTarget + `", "function": "` + fn + `", "args": ` + args
	if value != "" {
		x += `, "value": ` + value
	}
	return mustParse(t, []byte(`{"payload": {"A": {"type": "string", "default": "x"}}, "rules": [],
	  "onValid": {"execution": {`+x+`}}}`))
}

// The calldata equals what go-ethereum's ABI packer makes from the same
// values, for every elementary parameter type.
func TestExecutionEncodingMatchesABIPack(t *testing.T) {
	addr := common.HexToAddress("0x00000000000000000000000000000000000000aB")
	b4 := [4]byte{0xde, 0xad, 0xbe, 0xef}
	var b32 [32]byte
	b32[31] = 7
	neg := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 255))
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	cases := []struct {
		fn, args string
		abiJSON  string // the inputs for abi.JSON
		vals     []any
	}{
		{"settle(uint256,address)", `[{"type": "uint256", "value": 12345678901234567890123}, {"type": "address", "value": "` + addr.Hex() + `"}]`,
			`[{"type":"uint256"},{"type":"address"}]`, []any{mustBig("12345678901234567890123"), addr}},
		{"f(uint8,int16,uint64,int32)", `[{"type": "uint64", "value": 255}, {"type": "int64", "value": -32768}, {"type": "uint64", "value": "18446744073709551615"}, {"type": "int64", "value": "-5"}]`,
			`[{"type":"uint8"},{"type":"int16"},{"type":"uint64"},{"type":"int32"}]`, []any{uint8(255), int16(-32768), uint64(18446744073709551615), int32(-5)}},
		{"g(int,uint,uint24)", `[{"type": "int256", "value": ` + neg.String() + `}, {"type": "uint256", "value": ` + max.String() + `}, {"type": "double", "value": 16777215.0}]`,
			`[{"type":"int256"},{"type":"uint256"},{"type":"uint24"}]`, []any{neg, max, big.NewInt(16777215)}},
		{"h(bool,string,bytes,bytes4,bytes32)", `[{"type": "bool", "value": true}, {"type": "string", "value": "hé [A]"}, {"type": "bytes", "value": "'0x0102'"}, {"type": "bytes", "value": "'0xdeadbeef'"}, {"type": "bytes32", "value": "'0x` + strings.Repeat("00", 31) + `07'"}]`,
			`[{"type":"bool"},{"type":"string"},{"type":"bytes"},{"type":"bytes4"},{"type":"bytes32"}]`, []any{true, "hé x", []byte{1, 2}, b4, b32}},
		{"ping()", `[]`, `[]`, nil},
		{"withReturns(uint256)(bool,uint256)", `[{"type": "uint64", "value": "[A2]", "default": 9}]`, `[{"type":"uint256"}]`, []any{big.NewInt(9)}},
	}
	for _, c := range cases {
		d := execDoc(t, c.fn, c.args, "")
		r := eval(t, d, nil, Sources{})
		if !r.Valid || r.Execution == nil {
			t.Fatalf("%s: %+v", c.fn, r)
		}
		name := c.fn[:strings.IndexByte(c.fn, '(')]
		parsed, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"` + name + `","inputs":` + c.abiJSON + `}]`))
		if err != nil {
			t.Fatal(err)
		}
		want, err := parsed.Pack(name, c.vals...)
		if err != nil {
			t.Fatalf("%s: abi.Pack: %v", c.fn, err)
		}
		if !bytes.Equal(r.Execution.Data, want) {
			t.Errorf("%s:\n got %x\nwant %x", c.fn, r.Execution.Data, want)
		}
		if r.Execution.To.Hex() != execTarget || r.Execution.Function != c.fn || r.Execution.Value != nil || r.Execution.GasLimit != 0 {
			t.Errorf("%s: %+v", c.fn, r.Execution)
		}
	}
}

func mustBig(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

func TestExecutionValueGasAndPlainTransfer(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {"Wei": {"type": "uint256"}, "To": {"type": "address"}}, "rules": [],
	  "onValid": {"execution": {"to": "[To]", "gas": {"limit": 21000}, "value": {"type": "uint256", "value": "[Wei]"}}}}`))
	r := eval(t, d, map[string]any{"Wei": "1000000000000000000000", "To": execTarget}, Sources{})
	x := r.Execution
	if x == nil || x.Value.String() != "1000000000000000000000" || x.GasLimit != 21000 || len(x.Data) != 0 || x.Function != "" || x.To.Hex() != execTarget {
		t.Fatalf("plain transfer: %+v", x)
	}
	// Value 0 is nil ("nil is 0").
	r = eval(t, d, map[string]any{"Wei": "0", "To": execTarget}, Sources{})
	if r.Execution == nil || r.Execution.Value != nil {
		t.Errorf("zero value: %+v", r.Execution)
	}
}

// Every input error is a hard error naming the JSON path and what is allowed.
func TestExecutionInputErrorsAreHard(t *testing.T) {
	in := map[string]any{}
	cases := []struct {
		name          string
		doc           string
		path, message string
	}{
		{"uint8 overflow", `"to": "` + execTarget + `", "function": "f(uint8)", "args": [{"type": "uint64", "value": 256}]`,
			"onValid.execution.args[0]", "uint64 256 (declared uint64) does not fit ABI uint8: a whole number in [0, 255]"},
		{"int8 underflow", `"to": "` + execTarget + `", "function": "f(int8)", "args": [{"type": "int64", "value": -129}]`,
			"onValid.execution.args[0]", "[-128, 127]"},
		{"negative to uint", `"to": "` + execTarget + `", "function": "f(uint256)", "args": [{"type": "int256", "value": "-1"}]`,
			"onValid.execution.args[0]", "does not fit ABI uint256"},
		{"bool to uint", `"to": "` + execTarget + `", "function": "f(uint256)", "args": [{"type": "bool", "value": "[A] == 'x'"}]`,
			"onValid.execution.args[0]", "not a boolean"},
		{"string to address", `"to": "` + execTarget + `", "function": "f(address)", "args": [{"type": "string", "value": "[A]"}]`,
			"onValid.execution.args[0]", "0x followed by 40 hex digits"},
		{"bytes4 length", `"to": "` + execTarget + `", "function": "f(bytes4)", "args": [{"type": "bytes", "value": "'0x0102'"}]`,
			"onValid.execution.args[0]", "exactly 4 bytes"},
		{"xrc cast", `"to": "` + execTarget + `", "function": "f(address)", "args": [{"type": "address", "value": "[A]"}]`,
			"onValid.execution.args[0]", "cannot cast"},
		{"long string", `"to": "` + execTarget + `", "function": "f(string)", "args": [{"type": "string", "value": "[A] + [A]"}]`,
			"onValid.execution.args[0]", "MaxStringValueLen"},
		{"to not an address", `"to": "[A]", "function": "f()"`, "onValid.execution.to", "0x followed by 40 hex digits"},
		{"to zero", `"to": "0x0000000000000000000000000000000000000000"`, "onValid.execution.to", "zero address"},
		{"value negative", `"to": "` + execTarget + `", "value": {"type": "int64", "value": "-1"}`, "onValid.execution.value", "whole number in [0, 2^256-1]"},
		{"value overflow", `"to": "` + execTarget + `", "value": {"type": "decimal", "value": "115792089237316195423570985008687907853269984665640564039457584007913129639936"}`,
			"onValid.execution.value", "whole number in [0, 2^256-1]"},
		{"value fraction", `"to": "` + execTarget + `", "value": {"type": "double", "value": 1.5}`, "onValid.execution.value", "not a whole number"},
		{"args without function", `"to": "` + execTarget + `", "args": [{"type": "uint64", "value": 1}]`, "onValid.execution.args", "no function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mustParse(t, []byte(`{"payload": {"A": {"type": "string", "default": "x"}}, "rules": [], "onValid": {"execution": {`+c.doc+`}}}`))
			payload := in
			if c.name == "long string" {
				payload = map[string]any{"A": strings.Repeat("a", MaxStringValueLen/2+1)}
			}
			hardError(t, d, payload, Sources{}, "outcome", c.path, c.message)
		})
	}
	// An unsubstituted ${addr:KEY} placeholder is named as such.
	d := mustParse(t, []byte(`{"payload": {"T": {"type": "string"}}, "rules": [], "onValid": {"execution": {"to": "[T]"}}}`))
	hardError(t, d, map[string]any{"T": "${addr:FEED}"}, Sources{}, "outcome", "onValid.execution.to", "placeholder nothing substituted")
	// A hand-built execution whose args do not match its function.
	d = mustParse(t, []byte(`{"payload": {}, "rules": []}`))
	d.OnValid.Execution = &Execution{To: &Value{IsLiteral: true, Literal: execTarget}, Function: "f(uint256,uint256)",
		Args: []*TypedValue{{Type: TypeUint64, Value: &Value{IsLiteral: true, Literal: json.Number("1")}}}}
	hardError(t, d, nil, Sources{}, "outcome", "onValid.execution.args", "takes 2 argument(s), args has 1")
	d.OnValid.Execution = &Execution{To: &Value{IsLiteral: true, Literal: execTarget}, Function: "f(uint256[])"}
	hardError(t, d, nil, Sources{}, "outcome", "onValid.execution.function", "elementary ABI types")
}

// Signatures an XRC typed value cannot fill, and argument counts that do
// not match, are refused when the document is parsed.
func TestExecutionSignatureParseErrors(t *testing.T) {
	for fn, want := range map[string]string{
		"f(uint256[])":        "cannot fill a tuple, an array or a function",
		"f((uint256,bool))":   "cannot fill a tuple",
		"f(function)":         "cannot fill",
		"f(uint7)":            "unknown ABI type",
		"f(uint256":           "missing ')'",
		"1f()":                "must start with a function name",
		"f(uint256, uint256)": "unknown ABI type",
		"f(" + strings.Repeat("bool,", 16) + "bool)": "MaxExecArgs",
	} {
		_, err := Parse([]byte(`{"payload": {}, "rules": [], "onValid": {"execution": {"to": "` + execTarget + `", "function": "` + fn + `"}}}`))
		if err == nil || !strings.Contains(err.Error(), "onValid.execution.function") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want a problem at onValid.execution.function with %q, got %v", fn, want, err)
		}
	}
	_, err := Parse([]byte(`{"payload": {}, "rules": [], "onValid": {"execution": {"to": "` + execTarget + `", "function": "f(uint256)", "args": []}}}`))
	if err == nil || !strings.Contains(err.Error(), "takes 1 argument(s), args has 0") {
		t.Errorf("count mismatch: %v", err)
	}
}

// A missing key in the valid branch's execution downgrades the step to
// onInvalid (spec §8.4); an arg's default stands in for missing keys.
func TestExecutionMissingKeysAreSoftInvalid(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {"To": {"type": "address", "default": "`+execTarget+`"}}, "rules": [],
	  "onValid": {"execution": {"to": "[To]", "function": "f(uint256)", "args": [{"type": "uint256", "value": "[Amount]"}]}},
	  "onInvalid": {"payload": {"why": "no amount"}, "execution": {"to": "[To]", "function": "g(uint256)", "args": [{"type": "uint256", "value": "[Amount]", "default": "7"}]}}}`))
	r := eval(t, d, nil, Sources{})
	if r.Valid || r.Branch != "onInvalid" || !hasReason(r, ReasonSoftInvalid, "onValid.execution.args[0]") || r.Output["why"] != "no amount" {
		t.Fatalf("downgrade: %+v", r)
	}
	if r.Execution == nil || r.Execution.Function != "g(uint256)" || new(big.Int).SetBytes(r.Execution.Data[4:]).Int64() != 7 {
		t.Errorf("onInvalid execution with the default: %+v", r.Execution)
	}
	// Missing in the invalid branch too: meta-only, no execution.
	d = mustParse(t, []byte(`{"payload": {}, "rules": ["false"],
	  "onInvalid": {"payload": {"k": 1}, "execution": {"to": "[Nowhere]"}}}`))
	r = eval(t, d, nil, Sources{})
	if r.Valid || !r.MetaOnly || r.Execution != nil || len(r.Output) != 0 || !hasReason(r, ReasonSoftInvalid, "onInvalid.execution.to") {
		t.Errorf("meta-only: %+v", r)
	}
}

// The branch payload overlays the environment the execution resolves in
// (spec §1); a passthrough keeps its typed view.
func TestExecutionSeesTheBranchPayload(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {"N": {"type": "uint256"}}, "rules": [],
	  "onValid": {"payload": {"Doubled": "u256([N]) * u256(2)", "N": "[N]"},
	    "execution": {"to": "`+execTarget+`", "function": "f(uint256,uint256)", "args": [{"type": "uint256", "value": "[Doubled]"}, {"type": "uint256", "value": "u256([N]) + u256(1)"}]}}}`))
	r := eval(t, d, map[string]any{"N": "100000000000000000000"}, Sources{})
	if r.Execution == nil {
		t.Fatalf("%+v", r)
	}
	a, b := new(big.Int).SetBytes(r.Execution.Data[4:36]), new(big.Int).SetBytes(r.Execution.Data[36:68])
	if a.String() != "200000000000000000000" || b.String() != "100000000000000000001" {
		t.Errorf("args %s %s", a, b)
	}
	if _, ok := r.Inputs["Doubled"]; ok {
		t.Error("the overlay leaked into the inputs")
	}
}

// A step whose onValid execution reverted: onInvalid applies over the
// persisted inputs and extracted values, without a second read.
func TestRevertedAppliesOnInvalid(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {"Owner": {"type": "address"}, "Memo": {"type": "string", "default": "m"}},
	  "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "balanceOf(address)", "args": [{"type": "address", "value": "[Owner]"}],
	    "saveAs": {"0": {"key": "Balance", "type": "uint256"}}}],
	  "rules": ["u256([Balance]) > u256(0)"],
	  "onValid": {"payload": {"ok": true}, "execution": {"to": "`+execTarget+`", "function": "settle(address,uint256)", "args": [{"type": "address", "value": "[Owner]"}, {"type": "uint256", "value": "[Balance]"}]}},
	  "onInvalid": {"payload": {"refund": "[Balance]", "memo": "[Memo]", "extra": "[X]"}, "waitSec": 30,
	    "wakeUps": [{"runner": "[Owner]", "sessionId": 7, "stepId": "retry"}],
	    "execution": {"to": "`+execTarget+`", "function": "refund(address)", "args": [{"type": "address", "value": "[Owner]"}]}}}`))
	owner := "0x" + strings.Repeat("ab", 20)
	reads := 0
	src := Sources{Reads: ContractReaderFunc(func(context.Context, ReadRequest) ([]any, error) {
		reads++
		return []any{"123456789012345678901234567890"}, nil
	})}
	done := eval(t, d, map[string]any{"Owner": owner, "X": json.Number("18446744073709551617")}, src)
	if !done.Valid || done.Execution == nil || done.Execution.Function != "settle(address,uint256)" || reads != 1 {
		t.Fatalf("valid step: %+v", done)
	}
	// The engine persists Inputs and Extracted as JSON and reads numbers exactly.
	var kept struct {
		Inputs    map[string]any `json:"inputs"`
		Extracted map[string]any `json:"extracted"`
	}
	raw, _ := json.Marshal(done)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&kept); err != nil {
		t.Fatal(err)
	}
	persisted := Result{Valid: true, Branch: "onValid", Inputs: kept.Inputs, Extracted: kept.Extracted, Reasons: done.Reasons}
	r, err := Reverted(context.Background(), d, &persisted, "not enough allowance", src)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Errorf("Reverted read the chain again: %d reads", reads)
	}
	if r.Valid || r.Branch != "onInvalid" || r.WaitSec != 30 || r.MetaOnly {
		t.Fatalf("flipped: %+v", r)
	}
	if r.Output["refund"] != "123456789012345678901234567890" || r.Output["memo"] != "m" || r.Output["extra"] != json.Number("18446744073709551617") {
		t.Errorf("output: %#v", r.Output)
	}
	if len(r.WakeUps) != 1 || r.WakeUps[0].Runner != owner || r.WakeUps[0].SessionID != 7 || r.WakeUps[0].StepID != "retry" {
		t.Errorf("wake-ups: %+v", r.WakeUps)
	}
	if r.Execution == nil || r.Execution.Function != "refund(address)" || !bytes.Equal(r.Execution.Data[16:36], common.HexToAddress(owner).Bytes()) {
		t.Errorf("onInvalid execution: %+v", r.Execution)
	}
	last := r.Reasons[len(r.Reasons)-1]
	if last.Code != ReasonExecutionReverted || last.Path != "onValid.execution" || !strings.Contains(last.Message, "not enough allowance") {
		t.Errorf("reason: %+v", r.Reasons)
	}
	if r.Inputs["Owner"] != owner || r.Extracted["Balance"] != "123456789012345678901234567890" {
		t.Errorf("environment: %+v %+v", r.Inputs, r.Extracted)
	}

	// No second flip, and nothing to flip in an invalid step.
	if _, err := Reverted(context.Background(), d, r, "again", src); err == nil || !strings.Contains(err.Error(), "flips nothing") {
		t.Errorf("second flip: %v", err)
	}
	// An input that no longer casts is a hard error, not a silent flip.
	bad := *done
	bad.Inputs = map[string]any{"Owner": "nobody", "Memo": "m"}
	var he *HardError
	if _, err := Reverted(context.Background(), d, &bad, "", src); !errors.As(err, &he) || he.Path != "payload.Owner" {
		t.Errorf("bad input: %v", err)
	}
}
