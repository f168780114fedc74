package rule

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	kycRunner = "0x1234567890abcdef1234567890ABCDEF12345678"
	bidder    = "0x00000000000000000000000000000000000000b1"
)

// A rule shaped like the public KYC scenario's "request_kyc" step: it
// wakes the KYC worker session and hands its own session id on.
const requestKyc = `{
  "payload": {
    "orderId": {"type": "string"},
    "totalAmount": {"type": "uint256"},
    "KycRunner": {"type": "string"},
    "KycSessionId": {"type": "uint64"}
  },
  "rules": ["[orderId] != ''", "[totalAmount] > 0", "[KycRunner] != ''", "[KycSessionId] > 0"],
  "onValid": {
    "wakeUps": [
      {"runner": "[KycRunner]", "sessionId": "[KycSessionId]", "stepId": "wait_for_kyc_request",
       "payload": {"orderId": "[orderId]", "amount": "[totalAmount]", "twice": "[totalAmount] * 2",
                   "note": "order [orderId]", "flag": true, "_internal": "[Nope]"}},
      {"runner": "` + kycRunner + `", "sessionId": 7, "stepId": "[NextStep]"}
    ],
    "payload": {"orderId": "[orderId]", "OrderSessionId": "[__sessionId]"},
    "waitSec": 60
  },
  "onInvalid": {
    "payload": {"orderId": "[orderId]", "kycRequestSent": false},
    "wakeUps": [{"runner": "[KycRunner]", "sessionId": "99", "stepId": "request_failed"}]
  }
}`

func TestEvalWakeUps(t *testing.T) {
	d := mustParse(t, []byte(requestKyc))
	in := map[string]any{
		"orderId": "O-1", "totalAmount": json.Number("123456789012345678901234567890"),
		"KycRunner": kycRunner, "KycSessionId": json.Number("18446744073709551615"), "NextStep": "settle",
	}
	meta := map[string]any{"__sessionId": uint64(41)}
	r := eval(t, d, in, Sources{Meta: meta})
	want := []ResolvedWakeUp{
		{Runner: kycRunner, SessionID: 18446744073709551615, StepID: "wait_for_kyc_request", Payload: map[string]any{
			"orderId": "O-1", "amount": "123456789012345678901234567890", "twice": "246913578024691357802469135780",
			"note": "order O-1", "flag": true}},
		{Runner: kycRunner, SessionID: 7, StepID: "settle"},
	}
	if !r.Valid || !reflect.DeepEqual(r.WakeUps, want) {
		t.Fatalf("wake-ups\n got %#v\nwant %#v (%+v)", r.WakeUps, want, r.Reasons)
	}
	if r.Output["OrderSessionId"] != uint64(41) || r.WaitSec != 60 {
		t.Errorf("output %#v", r.Output)
	}
	if !r.NotPerformed.Empty() || r.NotPerformed.Sections() != nil {
		t.Errorf("wake-ups are performed by the engine, not listed as not performed: %+v", r.NotPerformed)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"wakeUps":[{"runner":"`+kycRunner+`","sessionId":18446744073709551615,"stepId":"wait_for_kyc_request","payload":{`) {
		t.Errorf("JSON: %s", b)
	}

	// The invalid branch's wake-ups when the rules fail.
	bad := map[string]any{"orderId": "O-1", "totalAmount": "0", "KycRunner": kycRunner, "KycSessionId": 5}
	r = eval(t, d, bad, Sources{})
	if r.Valid || !reflect.DeepEqual(r.WakeUps, []ResolvedWakeUp{{Runner: kycRunner, SessionID: 99, StepID: "request_failed"}}) {
		t.Errorf("invalid branch: %+v", r)
	}
}

func TestEvalWakeUpsSoftInvalid(t *testing.T) {
	d := mustParse(t, []byte(requestKyc))
	// [NextStep] is missing: the valid branch is soft-invalid, the step goes
	// to onInvalid with that branch's output and wake-ups.
	in := map[string]any{"orderId": "O-1", "totalAmount": 5, "KycRunner": kycRunner, "KycSessionId": 5}
	r := eval(t, d, in, Sources{Meta: map[string]any{"__sessionId": uint64(1)}})
	if r.Valid || r.Branch != "onInvalid" || !hasReason(r, ReasonSoftInvalid, "onValid.wakeUps[1].stepId") ||
		!reflect.DeepEqual(r.Output, map[string]any{"orderId": "O-1", "kycRequestSent": false}) || len(r.WakeUps) != 1 || r.WakeUps[0].SessionID != 99 {
		t.Errorf("downgrade: %+v", r)
	}
	if !strings.Contains(r.Reasons[0].Message, "missing key [NextStep] in the valid branch wake-ups") {
		t.Errorf("reason %q", r.Reasons[0].Message)
	}
	// In the invalid branch a missing key leaves the step meta-only: no
	// output and no wake-ups.
	inv := mustParse(t, []byte(`{"payload": {}, "rules": ["false"],
	  "onInvalid": {"payload": {"x": 1}, "wakeUps": [{"runner": "[R]", "sessionId": 3, "stepId": "s"}]}}`))
	r = eval(t, inv, nil, Sources{})
	if r.Valid || !r.MetaOnly || len(r.Output) != 0 || r.WakeUps != nil || !hasReason(r, ReasonSoftInvalid, "onInvalid.wakeUps[0].runner") {
		t.Errorf("meta-only: %+v", r)
	}
	// Each field and payload value is checked.
	for field, doc := range map[string]string{
		"onValid.wakeUps[0].runner":    `{"runner": "[R]", "sessionId": 3, "stepId": "s"}`,
		"onValid.wakeUps[0].sessionId": `{"runner": "` + bidder + `", "sessionId": "[S]", "stepId": "s"}`,
		"onValid.wakeUps[0].stepId":    `{"runner": "` + bidder + `", "sessionId": 3, "stepId": "[T]"}`,
		"onValid.wakeUps[0].payload.v": `{"runner": "` + bidder + `", "sessionId": 3, "stepId": "s", "payload": {"v": "[V] + 1"}}`,
	} {
		d := mustParse(t, []byte(`{"payload": {}, "rules": [], "onValid": {"wakeUps": [`+doc+`]}, "onInvalid": {"payload": {"down": true}}}`))
		r := eval(t, d, nil, Sources{})
		if r.Valid || !hasReason(r, ReasonSoftInvalid, field) || r.Output["down"] != true {
			t.Errorf("%s: %+v", field, r)
		}
	}
}

func TestEvalWakeUpsMalformed(t *testing.T) {
	wake := func(runner, session, step string) *Document {
		return mustParse(t, []byte(`{"payload": {}, "rules": [], "onValid": {"wakeUps": [
		  {"runner": "`+bidder+`", "sessionId": 1, "stepId": "ok"},
		  {"runner": `+runner+`, "sessionId": `+session+`, "stepId": `+step+`}]}}`))
	}
	ok := `"` + bidder + `"`
	for _, c := range []struct {
		name          string
		doc           *Document
		in            map[string]any
		path, message string
	}{
		{"runner text", wake(`"[R]"`, "1", `"s"`), map[string]any{"R": "abc"}, "onValid.wakeUps[1].runner", `runner resolved to "abc"; a runner is the target session owner's address: 0x followed by 40 hex digits`},
		{"runner number", wake(`"[R]"`, "1", `"s"`), map[string]any{"R": 5}, "onValid.wakeUps[1].runner", "runner resolved to int64 5"},
		{"runner short", wake(`"[R]"`, "1", `"s"`), map[string]any{"R": "0x1234"}, "onValid.wakeUps[1].runner", "40 hex digits"},
		{"session zero", wake(ok, `"[S]"`, `"s"`), map[string]any{"S": 0}, "onValid.wakeUps[1].sessionId", "0 is out of range [1, 18446744073709551615]; a session id is a whole number in [1, 2^64-1], as a number or a decimal string"},
		{"session negative text", wake(ok, `"[S]"`, `"s"`), map[string]any{"S": "-3"}, "onValid.wakeUps[1].sessionId", "-3 is out of range"},
		{"session fraction", wake(ok, `"[S]"`, `"s"`), map[string]any{"S": json.Number("1.5")}, "onValid.wakeUps[1].sessionId", "not a whole number"},
		{"session text", wake(ok, `"[S]"`, `"s"`), map[string]any{"S": "abc"}, "onValid.wakeUps[1].sessionId", `sessionId resolved to "abc"; not a whole decimal number`},
		{"session bool", wake(ok, `"[S]"`, `"s"`), map[string]any{"S": true}, "onValid.wakeUps[1].sessionId", "sessionId resolved to bool true; a boolean"},
		{"session beyond uint64", wake(ok, `"[S]"`, `"s"`), map[string]any{"S": json.Number("18446744073709551616")}, "onValid.wakeUps[1].sessionId", "out of range"},
		{"step empty", wake(ok, "1", `"[T]"`), map[string]any{"T": ""}, "onValid.wakeUps[1].stepId", `stepId resolved to ""; a step id is a non-empty string`},
		{"step number", wake(ok, "1", `"[T]"`), map[string]any{"T": 3}, "onValid.wakeUps[1].stepId", "stepId resolved to int64 3"},
	} {
		r, err := Evaluate(t.Context(), c.doc, c.in, Sources{})
		var he *HardError
		if !asHard(err, &he) || he.Stage != "outcome" || he.Path != c.path || !strings.Contains(err.Error(), c.message) {
			t.Errorf("%s: got %v, want a hard error at %s containing %q", c.name, err, c.path, c.message)
		}
		if r == nil {
			t.Errorf("%s: no partial result", c.name)
		}
	}
	// Accepted forms of sessionId: numbers, decimal strings, big integers
	// that fit, integral doubles.
	for _, s := range []any{json.Number("12"), "12", uint64(12), 12.0, json.Number("1.2e1")} {
		r := eval(t, wake(ok, `"[S]"`, `"s"`), map[string]any{"S": s}, Sources{})
		if !r.Valid || len(r.WakeUps) != 2 || r.WakeUps[1].SessionID != 12 {
			t.Errorf("sessionId %#v: %+v", s, r)
		}
	}
	r := eval(t, wake(ok, `"[S]"`, `"s"`), map[string]any{"S": json.Number("18446744073709551615")}, Sources{})
	if r.WakeUps[1].SessionID != 18446744073709551615 {
		t.Errorf("max uint64: %+v", r.WakeUps)
	}
}

func asHard(err error, target **HardError) bool { return errors.As(err, target) }

func TestParseWakeUpStep(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {}, "rules": [], "onValid": {"wakeUps": [
	  {"runner": "[R]", "sessionId": 1, "stepId": "main_update"},
	  {"runner": "[R]", "sessionId": "[S]", "stepId": "[Next]"}]}}`))
	w := d.OnValid.WakeUps
	if w[0].StepID != "main_update" || w[0].Step.Kind != KindTemplate || w[1].StepID != "[Next]" || w[1].Step.Kind != KindExpression {
		t.Errorf("stepId values: %+v %+v", w[0].Step, w[1].Step)
	}
	b, _ := json.Marshal(w[1])
	if string(b) != `{"runner":"[R]","sessionId":"[S]","stepId":"[Next]"}` {
		t.Errorf("JSON as authored: %s", b)
	}
	ve := problemsOf(t, []byte(`{"payload": {}, "onValid": {"wakeUps": [{"runner": "[R]", "sessionId": 1, "stepId": "  "}]}}`))
	if len(ve.Problems) != 1 || ve.Problems[0].Path != "onValid.wakeUps[0].stepId" || ve.Problems[0].Code != CodeRequired {
		t.Errorf("blank stepId: %+v", ve.Problems)
	}
}
