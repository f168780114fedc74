package rule

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
)

// A contract's text is JSON, kept byte for byte, or an envelope of one
// line: one trailing line break is dropped, another is refused, as is
// other text, unless forced.
func TestStoredText(t *testing.T) {
	env := "XGR1.AESGCM256.0x00.body"
	for _, tc := range []struct {
		in, want string
		force    bool
		err      string
	}{
		{in: "{\"a\": 1}\n", want: "{\"a\": 1}\n"},
		{in: env + "\n", want: env},
		{in: env + "\r\n", want: env},
		{in: env, want: env},
		{in: env + "\n\n", err: "holds a line break at byte"},
		{in: env + "\n\n", force: true, want: env + "\n"},
		{in: "XGR1.a\nb", err: "at byte 6"},
		{in: "not json", err: "not valid JSON"},
		{in: "not json", force: true, want: "not json"},
	} {
		got, err := StoredText([]byte(tc.in), tc.force)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("StoredText(%q, %v) = %q, %v; want error %q", tc.in, tc.force, got, err, tc.err)
			}
		case err != nil || string(got) != tc.want:
			t.Errorf("StoredText(%q, %v) = %q, %v; want %q", tc.in, tc.force, got, err, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	s, err := Summarize([]byte(`{"payload": {"x": {"type": "uint256"}}, "rules": ["x > 1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Text, "1 inputs, 0 apiCalls, 0 contractReads, 1 rules, hash 0x") || s.Fields["rules"] != 1 || s.Fields["inputs"] != 1 {
		t.Errorf("summary %q, fields %v", s.Text, s.Fields)
	}
	if _, err := Summarize([]byte(`{`)); err == nil {
		t.Error("broken JSON summarized")
	}
}

func TestWriteResult(t *testing.T) {
	r := &Result{Valid: false, Branch: "onInvalid", Output: map[string]any{"n": 1}, WaitSec: 5,
		Extracted: map[string]any{"b": 2, "a": "x"},
		Calls:     []CallReport{{Name: "feed", Method: "GET", URL: "http://h/p", Status: 200, Defaulted: []string{"p"}, Duration: Duration(time.Millisecond)}},
		Reads:     []ReadReport{{Index: 0, To: "0xabc", Function: "f()", Error: "down", SoftInvalid: []string{"k"}}},
		Rules:     []RuleReport{{Index: 0, Type: RuleValidate, Result: false, Missing: []string{"x"}}},
		Reasons:   []Reason{{Code: ReasonRuleFalse, Path: "rules[0]", Message: "false"}},
		Execution: &execution.Call{To: common.HexToAddress("0x1"), Data: []byte{1}},
	}
	var b strings.Builder
	WriteResult(&b, "f.json", r, nil)
	for _, want := range []string{
		"f.json: onInvalid (invalid)\n", "waitSec: 5\n", "extracted:\n  a = \"x\"\n  b = 2\n",
		"  feed GET http://h/p -> 200 (1ms) defaulted: p\n", "  [0] 0xabc f() FAILED: down soft-invalid: k\n",
		"reasons:\n  rule-false: rules[0]: false\n",
		"execution: (value transfer) on 0x0000000000000000000000000000000000000001, data 0x01, value 0 wei, gas limit the operator's cap",
		"timings: total 0s",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteResult(&b, "f.json", nil, errors.New("boom"))
	if b.String() != "f.json: ABORTED (hard error): boom\n" {
		t.Errorf("hard error: %q", b.String())
	}
}
