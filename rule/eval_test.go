package rule

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

func eval(t *testing.T, doc *Document, payload map[string]any, src Sources) *Result {
	t.Helper()
	r, err := Evaluate(context.Background(), doc, payload, src)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return r
}

func hardError(t *testing.T, doc *Document, payload map[string]any, src Sources, stage, path, contains string) {
	t.Helper()
	r, err := Evaluate(context.Background(), doc, payload, src)
	var he *HardError
	if !errors.As(err, &he) || he.Stage != stage || he.Path != path || !strings.Contains(err.Error(), contains) {
		t.Errorf("want a hard error at %s %s containing %q; got %v", stage, path, contains, err)
	}
	if r == nil {
		t.Error("no partial result with the hard error")
	}
}

func hasReason(r *Result, code, path string) bool {
	for _, x := range r.Reasons {
		if x.Code == code && x.Path == path {
			return true
		}
	}
	return false
}

// Spec §11.1: the minimal validation-only rule.
func TestEvalMinimalRule(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {"Amount": {"type": "int64"}}, "rules": ["[Amount] > 0"]}`))
	if r := eval(t, d, map[string]any{"Amount": json.Number("5")}, Sources{}); !r.Valid || r.Branch != "onValid" || len(r.Reasons) != 0 {
		t.Errorf("Amount 5: %+v", r)
	}
	if r := eval(t, d, map[string]any{"Amount": "42"}, Sources{}); !r.Valid {
		t.Errorf("Amount \"42\": %+v", r)
	}
	r := eval(t, d, map[string]any{"Amount": 0.0}, Sources{})
	if r.Valid || r.Branch != "onInvalid" || !hasReason(r, ReasonRuleFalse, "rules[0]") || r.Rules[0].Result {
		t.Errorf("Amount 0: %+v", r)
	}
	r = eval(t, d, map[string]any{}, Sources{})
	if r.Valid || !hasReason(r, ReasonMissingInput, "payload") || !r.Rules[0].Skipped || !reflect.DeepEqual(r.Reasons[0].Keys, []string{"Amount"}) {
		t.Errorf("Amount missing: %+v", r)
	}
	r = eval(t, d, map[string]any{"Amount": nil}, Sources{})
	if r.Valid || !hasReason(r, ReasonMissingInput, "payload") {
		t.Errorf("Amount null: %+v", r)
	}
	hardError(t, d, map[string]any{"Amount": "abc"}, Sources{}, "inputs", "payload.Amount", "not a whole decimal")
	hardError(t, d, map[string]any{"Amount": json.Number("1e19")}, Sources{}, "inputs", "payload.Amount", "out of range")
	hardError(t, d, map[string]any{"Amount": true}, Sources{}, "inputs", "payload.Amount", "booleans")
}

// Spec §11.2: API call with extract defaults and branch payload arithmetic.
const spec112 = `{
  "payload": {
    "Ticker": { "type": "string" },
    "A_out":  { "type": "int64", "default": 30 },
    "B_in":   { "type": "int64", "default": 7 }
  },
  "apiCalls": [
    {
      "name": "q",
      "method": "GET",
      "urlTemplate": "https://api.example.net/quote/[Ticker]",
      "contentType": "json",
      "timeoutMs": 2500,
      "extractMap": {
        "Ok":    { "type":"bool",   "expr":"bool(resp.ok)",      "default": false },
        "notOk": { "type":"string", "expr":"string(resp.notok)", "default":"not existing" }
      }
    }
  ],
  "rules": [ "[Ok] == true" ],
  "onValid": { "payload": { "memo": "G:ok", "A_out": "[A_out]", "B_in": "[B_in]" } },
  "onInvalid": { "payload": { "memo": "G:inc", "A_out": "[A_out] + 15", "B_in": "[B_in]" } }
}`

func TestEvalSpecAPIExample(t *testing.T) {
	d := mustParse(t, []byte(spec112))
	var seen APIRequest
	api := func(body string, status int) APICaller {
		return APICallerFunc(func(_ context.Context, req APIRequest) (APIResponse, error) {
			seen = req
			return APIResponse{Status: status, Body: []byte(body)}, nil
		})
	}
	in := map[string]any{"Ticker": "XGR"}

	r := eval(t, d, in, Sources{API: api(`{"ok": true}`, 200)})
	want := map[string]any{"memo": "G:ok", "A_out": int64(30), "B_in": int64(7)}
	if !r.Valid || !reflect.DeepEqual(r.Output, want) {
		t.Errorf("ok: valid %v output %#v", r.Valid, r.Output)
	}
	if seen.URL != "https://api.example.net/quote/XGR" || seen.Method != "GET" || seen.Timeout != 2500*time.Millisecond {
		t.Errorf("request: %+v", seen)
	}
	// resp.notok is missing: the alias takes its default, the step stays valid.
	if r.Extracted["notOk"] != "not existing" || r.Extracted["Ok"] != true || !reflect.DeepEqual(r.Calls[0].Defaulted, []string{"notOk"}) {
		t.Errorf("extracted %v, call %+v", r.Extracted, r.Calls[0])
	}

	r = eval(t, d, in, Sources{API: api(`{"ok": false, "notok": "x"}`, 200)})
	want = map[string]any{"memo": "G:inc", "A_out": int64(45), "B_in": int64(7)}
	if r.Valid || !reflect.DeepEqual(r.Output, want) || r.Extracted["notOk"] != "x" {
		t.Errorf("not ok: valid %v output %#v extracted %v", r.Valid, r.Output, r.Extracted)
	}

	// A failed call defaults every alias independently.
	for name, src := range map[string]Sources{
		"status 503":    {API: api(`{"ok": true}`, 503)},
		"not JSON":      {API: api(`<html>`, 200)},
		"trailing data": {API: api(`{"ok": true} {}`, 200)},
		"no API caller": {},
		"transport fail": {API: APICallerFunc(func(context.Context, APIRequest) (APIResponse, error) {
			return APIResponse{}, errors.New("connection refused")
		})},
	} {
		r = eval(t, d, in, src)
		if r.Valid || r.Extracted["Ok"] != false || r.Extracted["notOk"] != "not existing" || r.Calls[0].Error == "" || len(r.Calls[0].Defaulted) != 2 {
			t.Errorf("%s: valid %v extracted %v call %+v", name, r.Valid, r.Extracted, r.Calls[0])
		}
		if !reflect.DeepEqual(r.Output, map[string]any{"memo": "G:inc", "A_out": int64(45), "B_in": int64(7)}) {
			t.Errorf("%s: output %v", name, r.Output)
		}
	}

	// A missing required input forces invalid; the URL cannot be rendered, so the call fails too.
	r = eval(t, d, map[string]any{}, Sources{API: api(`{"ok": true}`, 200)})
	if r.Valid || !hasReason(r, ReasonMissingInput, "payload") || !strings.Contains(r.Calls[0].Error, "Ticker") || r.Output["A_out"] != int64(45) {
		t.Errorf("no Ticker: %+v", r)
	}
}

func TestEvalExtractSoftInvalid(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {},
  "apiCalls": [{"name": "p", "method": "GET", "urlTemplate": "https://e.org/p", "contentType": "json",
    "extractMap": {
      "Price": {"type": "double", "expr": "double(resp.price)"},
      "Ratio": {"type": "int64", "expr": "resp.n / resp.d", "default": -1},
      "Label": {"type": "string", "value": "resp.label + '-' + [Suffix]", "default": "none"}
    }}],
  "rules": ["true"],
  "onValid": {"payload": {"P": "[Price]"}},
  "onInvalid": {"payload": {"R": "[Ratio]", "L": "[Label]"}}
}`))
	api := func(body string) Sources {
		return Sources{API: StaticAPI{"p": {Status: 200, Body: []byte(body)}}}
	}
	r := eval(t, d, map[string]any{"Suffix": "x"}, api(`{"price": "12.5", "n": 7, "d": 2, "label": "a"}`))
	if !r.Valid || r.Output["P"] != 12.5 || r.Extracted["Ratio"] != int64(-1) || r.Extracted["Label"] != "a-x" {
		// resp.n / resp.d are doubles (3.5): the int64 cast fails, Ratio takes its default.
		t.Errorf("complete response: %+v", r)
	}
	// resp.price missing and no default: soft-invalid, the step goes invalid although all rules hold.
	r = eval(t, d, map[string]any{"Suffix": "x"}, api(`{"n": 8, "d": 0, "label": "a"}`))
	if r.Valid || r.Branch != "onInvalid" || !hasReason(r, ReasonSoftInvalid, "apiCalls[0].extractMap.Price") || !r.Rules[0].Result {
		t.Errorf("missing price: %+v", r)
	}
	if _, ok := r.Extracted["Price"]; ok {
		t.Error("a soft-invalid alias was reported as extracted")
	}
	// Division by zero in the extract is an evaluation failure: the default applies.
	if r.Extracted["Ratio"] != int64(-1) {
		t.Errorf("ratio: %v", r.Extracted["Ratio"])
	}
	// A placeholder for a missing input key in an extract: the alias default.
	r = eval(t, d, map[string]any{}, api(`{"price": 1, "label": "a"}`))
	if r.Extracted["Label"] != "none" || !r.Valid {
		t.Errorf("missing suffix: %+v", r)
	}
	// A response over the list cap is a hard error, not a default.
	long := "[" + strings.TrimSuffix(strings.Repeat("1,", MaxListCap+1), ",") + "]"
	hardError(t, d, map[string]any{}, api(`{"price": 1, "list": `+long+`}`), "apiCalls", "apiCalls[0]", "MaxListCap")
}

func TestEvalRules(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"A": {"type": "int64"}, "Fraud": {"type": "double", "default": 0}},
  "rules": [
    "[A] > 0",
    {"type": "validate", "expression": "[Country] == 'DE'"},
    {"type": "abortStep", "expression": "[Fraud] > 0.9"},
    {"type": "cancelSession", "expression": "[A] == 666"}
  ],
  "onValid": {"payload": {"ok": true}, "waitSec": 5},
  "onInvalid": {"payload": {"ok": false}, "waitSec": 60}
}`))
	r := eval(t, d, map[string]any{"A": 1, "Country": "DE"}, Sources{})
	if !r.Valid || r.Action != nil || r.WaitSec != 5 || r.Output["ok"] != true {
		t.Errorf("valid: %+v", r)
	}
	// A missing key makes the rule false, never an abort.
	r = eval(t, d, map[string]any{"A": 1}, Sources{})
	if r.Valid || r.WaitSec != 60 || !reflect.DeepEqual(r.Rules[1].Missing, []string{"Country"}) || !hasReason(r, ReasonRuleFalse, "rules[1]") {
		t.Errorf("missing Country: %+v", r)
	}
	r = eval(t, d, map[string]any{"A": 1, "Country": "DE", "Fraud": 0.95}, Sources{})
	if r.Action == nil || r.Action.Type != RuleAbortStep || r.Action.Rule != 2 || r.Branch != "" || r.Valid || len(r.Output) != 0 || r.WaitSec != 0 {
		t.Errorf("abortStep: %+v", r)
	}
	r = eval(t, d, map[string]any{"A": 666, "Country": "DE"}, Sources{})
	if r.Action == nil || r.Action.Type != RuleCancelSession {
		t.Errorf("cancelSession: %+v", r)
	}
	// A type error in a rule is a hard error.
	te := mustParse(t, []byte(`{"payload": {"A": {"type": "int64"}}, "rules": ["[A] + 'x' == 'y'"]}`))
	hardError(t, te, map[string]any{"A": 1}, Sources{}, "rules", "rules[0]", "no such overload")
	nb := mustParse(t, []byte(`{"payload": {}, "rules": ["1 + 1"]}`))
	hardError(t, nb, nil, Sources{}, "rules", "rules[0]", "must evaluate to bool")
	dz := mustParse(t, []byte(`{"payload": {"N": {"type": "int64"}}, "rules": ["10 / [N] > 1"]}`))
	hardError(t, dz, map[string]any{"N": 0}, Sources{}, "rules", "rules[0]", "division by zero")
	// No rules: valid unless inputs are missing.
	empty := mustParse(t, []byte(`{"payload": {"X": {"type": "bool"}}, "rules": []}`))
	if !eval(t, empty, map[string]any{"X": true}, Sources{}).Valid || eval(t, empty, nil, Sources{}).Valid {
		t.Error("empty rules")
	}
}

func TestEvalOutcome(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"A": {"type": "int64"}, "Name": {"type": "string", "default": "Alice"}},
  "rules": ["[A] >= 0"],
  "onValid": {"payload": {
    "passthrough": "[A]",
    "cmp": "[A] >= 60",
    "memo": "memo: [A]",
    "greeting": "Hello [Name], amount=[A]",
    "lit": 0.0,
    "obj": {"k": [1, "two"]},
    "quoted": "\"some literal string\"",
    "wei": "1000000000000000000000",
    "needs": "[Later]"
  }},
  "onInvalid": {"payload": {"memo": "G:inc", "A_out": "[A] + 15", "session": "[__sessionId]"}}
}`))
	// onValid needs [Later]: without it the step is downgraded to onInvalid.
	r := eval(t, d, map[string]any{"A": 61, "__sessionId": "7"}, Sources{})
	want := map[string]any{"memo": "G:inc", "A_out": int64(76), "session": "7"}
	if r.Valid || r.Branch != "onInvalid" || !reflect.DeepEqual(r.Output, want) || !hasReason(r, ReasonSoftInvalid, "onValid.payload.needs") {
		t.Errorf("downgrade: %+v", r)
	}
	r = eval(t, d, map[string]any{"A": 61, "Later": true}, Sources{})
	want = map[string]any{
		"passthrough": int64(61), "cmp": true, "memo": "memo: 61", "greeting": "Hello Alice, amount=61",
		"lit": json.Number("0.0"), "obj": map[string]any{"k": []any{json.Number("1"), "two"}},
		"quoted": "some literal string", "wei": "1000000000000000000000", "needs": true,
	}
	if !r.Valid || !reflect.DeepEqual(r.Output, want) {
		t.Errorf("valid output:\n got %#v\nwant %#v", r.Output, want)
	}
	b, _ := json.Marshal(r.Output)
	if !strings.Contains(string(b), `"lit":0.0`) {
		t.Errorf("literal numbers keep their text: %s", b)
	}
	// onInvalid needs [__sessionId]: meta-only, no output.
	r = eval(t, d, map[string]any{"A": -1}, Sources{})
	if r.Valid || !r.MetaOnly || len(r.Output) != 0 || !hasReason(r, ReasonSoftInvalid, "onInvalid.payload.session") {
		t.Errorf("meta-only: %+v", r)
	}
	bad := mustParse(t, []byte(`{"payload": {"X": {"type": "double"}}, "rules": [], "onValid": {"payload": {"q": "[X] / 0.0", "r": "int64([X]) / 0"}}}`))
	hardError(t, bad, map[string]any{"X": 1}, Sources{}, "outcome", "onValid.payload.q", "not a finite number")
	bad2 := mustParse(t, []byte(`{"payload": {"X": {"type": "string"}}, "rules": [], "onValid": {"payload": {"q": "[X] * 2"}}}`))
	hardError(t, bad2, map[string]any{"X": "a"}, Sources{}, "outcome", "onValid.payload.q", "no such overload")
}

func TestEvalInputsPassThrough(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {"N": {"type": "uint64"}}, "rules": ["[N] > 0", "[Extra] == 2.0"],
		"onValid": {"payload": {"L": "[List]"}}}`))
	r := eval(t, d, map[string]any{"N": json.Number("3"), "Extra": json.Number("2"), "List": []any{json.Number("1"), "a"}}, Sources{})
	// Undeclared integers stay integers (exact), and 2 == 2.0 holds.
	if !r.Valid || r.Inputs["N"] != uint64(3) || r.Inputs["Extra"] != int64(2) || !reflect.DeepEqual(r.Output["L"], []any{int64(1), "a"}) {
		t.Errorf("pass-through: %+v", r)
	}
	long := make([]any, MaxListCap+1)
	hardError(t, d, map[string]any{"N": 1, "Extra": 2, "List": long}, Sources{}, "inputs", "payload.List", "MaxListCap")
}

// Spec §6.5 examples A and B, with a reader that stands in for the chain;
// example B's slot0() with its return types, which a saveAs past slot 0
// without a string slot needs (TestRefusesUnderivableTuple).
func TestEvalContractReads(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"Token": {"type": "address"}, "User": {"type": "address"}},
  "contractReads": [
    {"to": "[Token]", "function": "balanceOf(address)", "args": [{"type": "address", "value": "[User]"}],
     "saveAs": {"0": {"key": "UserBalance", "type": "uint256", "default": "0"}}},
    {"to": "0x1f98431c8ad98523631ae4a59f267346ea31f984", "function": "slot0()(uint160,int24)", "args": [],
     "saveAs": {"0": {"key": "SqrtPriceX96", "type": "uint256"}, "1": {"key": "Tick", "type": "int64", "default": 0}}}
  ],
  "rules": ["u256([UserBalance]) > 0"],
  "onValid": {"payload": {"bal": "[UserBalance]", "tick": "[Tick]"}},
  "onInvalid": {"payload": {"bal": "[UserBalance]"}}
}`))
	token, user := "0x"+strings.Repeat("ab", 20), "0x"+strings.Repeat("cd", 20)
	in := map[string]any{"Token": token, "User": user}
	var calls []ReadRequest
	reader := func(answers map[string][]any, fail map[string]bool) Sources {
		return Sources{Reads: ContractReaderFunc(func(_ context.Context, req ReadRequest) ([]any, error) {
			calls = append(calls, req)
			if fail[req.Function] {
				return nil, errors.New("execution reverted")
			}
			return answers[req.Function], nil
		})}
	}
	bal, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	r := eval(t, d, in, reader(map[string][]any{"balanceOf(address)": {bal}, "slot0()(uint160,int24)": {big.NewInt(79228), int64(-5)}}, nil))
	if !r.Valid || r.Output["bal"] != "123456789012345678901234567890" || r.Output["tick"] != int64(-5) || r.Extracted["SqrtPriceX96"] != "79228" {
		t.Errorf("reads: %+v", r)
	}
	if calls[0].To != token || calls[0].Args[0].Type != TypeAddress || calls[0].Args[0].Value != user || calls[1].To != "0x1f98431c8ad98523631ae4a59f267346ea31f984" {
		t.Errorf("requests: %+v", calls)
	}
	// saveAs tells the reader each slot's type (it decodes the declared return list).
	if want := []ReturnSlot{{0, TypeUint256}, {1, TypeInt64}}; !reflect.DeepEqual(calls[1].Returns, want) {
		t.Errorf("slot0() returns %+v, want %+v", calls[1].Returns, want)
	}
	// A slot the reader could not decode defaults alone; the others are stored.
	r = eval(t, d, in, reader(map[string][]any{"balanceOf(address)": {"5"}, "slot0()(uint160,int24)": {"9", errors.New("abi: improperly encoded int64")}}, nil))
	if !r.Valid || r.Extracted["SqrtPriceX96"] != "9" || r.Extracted["Tick"] != int64(0) || !reflect.DeepEqual(r.Reads[1].Defaulted, []string{"Tick"}) {
		t.Errorf("slot error: %+v", r)
	}
	// A request the reader cannot encode is a hard error.
	invalid := Sources{Reads: ContractReaderFunc(func(context.Context, ReadRequest) ([]any, error) {
		return nil, fmt.Errorf("%w: args[0]: -1 does not fit uint256", ErrInvalidRead)
	})}
	hardError(t, d, in, invalid, "contractReads", "contractReads[0]", "does not fit uint256")
	// Example B: one value back, Tick takes its default.
	r = eval(t, d, in, reader(map[string][]any{"balanceOf(address)": {"5"}, "slot0()(uint160,int24)": {"1"}}, nil))
	if !r.Valid || r.Extracted["Tick"] != int64(0) || !reflect.DeepEqual(r.Reads[1].Defaulted, []string{"Tick"}) {
		t.Errorf("short tuple: %+v", r)
	}
	// The read fails: UserBalance takes "0"; SqrtPriceX96 has no default, soft-invalid.
	r = eval(t, d, in, reader(nil, map[string]bool{"balanceOf(address)": true, "slot0()(uint160,int24)": true}))
	if r.Valid || r.Extracted["UserBalance"] != "0" || !hasReason(r, ReasonSoftInvalid, "contractReads[1].saveAs.0") || r.Output["bal"] != "0" {
		t.Errorf("failed reads: %+v", r)
	}
	// A slot that does not cast falls back to its default.
	r = eval(t, d, in, reader(map[string][]any{"balanceOf(address)": {"-3"}, "slot0()(uint160,int24)": {"1", "x"}}, nil))
	if r.Extracted["UserBalance"] != "0" || r.Extracted["Tick"] != int64(0) {
		t.Errorf("cast fallback: %+v", r.Extracted)
	}
	// Results fetched earlier, by read index.
	r = eval(t, d, in, Sources{Reads: StaticReads{0: {"7"}, 1: {"9", int64(3)}}})
	if !r.Valid || r.Output["bal"] != "7" || r.Output["tick"] != int64(3) {
		t.Errorf("static reads: %+v", r)
	}
	r = eval(t, d, in, Sources{Reads: StaticReads{0: {"7"}}})
	if r.Valid || !strings.Contains(r.Reads[1].Error, "no stored result for contractReads[1]") {
		t.Errorf("static reads, one missing: %+v", r.Reads)
	}
	// No reader (no chain backend): every slot defaults or is soft-invalid.
	r = eval(t, d, in, Sources{})
	if r.Valid || !strings.Contains(r.Reads[0].Error, "no contract reader") {
		t.Errorf("no reader: %+v", r.Reads)
	}
	// A missing argument key without default: the read is not performed.
	calls = nil
	r = eval(t, d, map[string]any{"Token": token}, reader(map[string][]any{"slot0()(uint160,int24)": {"1", "2"}}, nil))
	if len(calls) != 1 || r.Extracted["UserBalance"] != "0" {
		t.Errorf("missing arg: %d calls, %+v", len(calls), r)
	}
	// "to" that is not an address and an argument that does not cast are hard errors.
	bad := mustParse(t, []byte(`{"payload": {"T": {"type": "string"}}, "contractReads": [{"to": "Token=[T]", "function": "f()", "saveAs": {"0": {"key": "K", "type": "bool"}}}], "rules": []}`))
	hardError(t, bad, map[string]any{"T": "x"}, reader(nil, nil), "contractReads", "contractReads[0].to", "not an address")
	bad2 := mustParse(t, []byte(`{"payload": {"U": {"type": "string"}}, "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "f(address)", "args": [{"type": "address", "value": "[U]"}], "saveAs": {}}], "rules": []}`))
	hardError(t, bad2, map[string]any{"U": "nobody"}, reader(nil, nil), "contractReads", "contractReads[0].args[0]", "40 hex digits")
}

func TestEvalNotPerformed(t *testing.T) {
	d := mustParse(t, []byte(spec113))
	owner := "0x" + strings.Repeat("11", 20)
	r := eval(t, d, map[string]any{"Owner": owner, "Auditor": owner}, Sources{Reads: ContractReaderFunc(func(context.Context, ReadRequest) ([]any, error) {
		return []any{big.NewInt(10)}, nil
	})})
	np := r.NotPerformed
	if !r.Valid || len(np.Grants) != 1 || *np.LogExpireDays != 90 || !*np.EncryptLogs || np.Empty() {
		t.Errorf("not performed: %+v", r)
	}
	if got := strings.Join(np.Sections(), ", "); got != `1 grants, encryptLogs=true, logExpireDays=90` {
		t.Errorf("Sections: %s", got)
	}
	if (NotPerformed{}).Sections() != nil {
		t.Error("nothing left undone must have no sections")
	}
	// The execution is resolved for the engine: notify(Owner, Balance).
	x := r.Execution
	want := "0x" + hex.EncodeToString(crypto.Keccak256([]byte("notify(address,uint256)"))[:4]) +
		strings.Repeat("0", 24) + strings.Repeat("11", 20) + fmt.Sprintf("%064x", 10)
	if x == nil || x.To.Hex() != "0x2222222222222222222222222222222222222222" || x.GasLimit != 250000 || x.Value != nil ||
		x.Function != "notify(address,uint256)(bool)" || "0x"+hex.EncodeToString(x.Data) != want {
		t.Errorf("execution: %+v, want data %s", x, want)
	}
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"notPerformed":{"grants":[`) || !strings.Contains(string(b), `"execution":{"to":"0x2222222222222222222222222222222222222222"`) {
		t.Errorf("JSON: %s %v", b, err)
	}
}

func TestEvalTimingsUseTheGivenClock(t *testing.T) {
	d := mustParse(t, []byte(spec112))
	var mu sync.Mutex
	now := time.Unix(0, 0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
	r := eval(t, d, map[string]any{"Ticker": "X"}, Sources{API: StaticAPI{"q": {Status: 200, Body: []byte(`{"ok": true}`)}}, Clock: clock})
	if r.Timings.Total <= 0 || r.Timings.APICalls <= 0 || r.Calls[0].Duration <= 0 {
		t.Errorf("timings: %+v", r.Timings)
	}
	r = eval(t, d, map[string]any{"Ticker": "X"}, Sources{})
	if r.Timings.Total != 0 {
		t.Errorf("no clock, yet timings %+v", r.Timings)
	}
}

func TestEvalConcurrentAndDeterministic(t *testing.T) {
	d := mustParse(t, readFixture(t, quorumFixture))
	src := Sources{API: quorumStub(100, 100.5, 150)}
	first := eval(t, d, nil, src)
	want, _ := json.Marshal(first)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				r, err := Evaluate(context.Background(), d, nil, src)
				if err != nil {
					errs <- err.Error()
					return
				}
				if got, _ := json.Marshal(r); string(got) != string(want) {
					errs <- fmt.Sprintf("result differs:\n%s\n%s", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
