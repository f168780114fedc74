package rule

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestEvalMeta(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"orderId": {"type": "string"}, "__stepId": {"type": "string", "default": "none"}},
  "rules": ["[__sessionId] > 0", "0 < [__sessionId]", "[__owner] != ''"],
  "onValid": {"payload": {
    "OrderSessionId": "[__sessionId]",
    "next": "([__sessionId] + 1)",
    "memo": "order [orderId] in [__pid] at [__stepId] of [__ostcId]",
    "step": "[__stepId]"
  }},
  "onInvalid": {"payload": {"orderId": "[orderId]"}}
}`))
	meta := map[string]any{
		"__sessionId": uint64(9223372036854775813), // beyond int64: exact
		"__owner":     "0x" + "ab" + "000000000000000000000000000000000000cd",
		"__pid":       "9223372036854775813:4",
		"__stepId":    "request_kyc",
		"__ostcId":    "order_process",
	}
	// A payload key of a meta key's name does not override it.
	in := map[string]any{"orderId": "O-1", "__sessionId": json.Number("7"), "__pid": "forged"}
	r := eval(t, d, in, Sources{Meta: meta})
	want := map[string]any{
		"OrderSessionId": uint64(9223372036854775813),
		"next":           uint64(9223372036854775814),
		"memo":           "order O-1 in 9223372036854775813:4 at request_kyc of order_process",
		"step":           "request_kyc",
	}
	if !r.Valid || !reflect.DeepEqual(r.Output, want) {
		t.Errorf("output\n got %#v\nwant %#v (%+v)", r.Output, want, r.Reasons)
	}
	b, _ := json.Marshal(r.Output["OrderSessionId"])
	if string(b) != "9223372036854775813" {
		t.Errorf("session id JSON %s", b)
	}
	// Meta keys are neither inputs nor output unless written to one.
	for k := range meta {
		if _, ok := r.Inputs[k]; ok {
			t.Errorf("meta key %s reported as an input", k)
		}
	}
	if !reflect.DeepEqual(r.Inputs, map[string]any{"orderId": "O-1"}) {
		t.Errorf("inputs %#v", r.Inputs)
	}
	// The caller's payload is left as it was.
	if in["__sessionId"] != json.Number("7") || len(in) != 3 {
		t.Errorf("payload changed: %#v", in)
	}

	// Without meta a placeholder for one is a missing key like any other
	// (the rule is false; the valid branch would be soft-invalid).
	r = eval(t, d, map[string]any{"orderId": "O-1"}, Sources{})
	if r.Valid || !reflect.DeepEqual(r.Rules[0].Missing, []string{"__sessionId"}) || !reflect.DeepEqual(r.Output, map[string]any{"orderId": "O-1"}) {
		t.Errorf("no meta: %+v", r)
	}
	branch := mustParse(t, []byte(`{"payload": {}, "rules": [], "onValid": {"payload": {"s": "[__sessionId]"}}, "onInvalid": {"payload": {"ok": false}}}`))
	r = eval(t, branch, nil, Sources{Meta: map[string]any{"__owner": "0x00"}})
	if r.Valid || !hasReason(r, ReasonSoftInvalid, "onValid.payload.s") || r.Output["ok"] != false {
		t.Errorf("missing meta key in the valid branch: %+v", r)
	}
	// A meta value that a declared input cannot take is a hard error there.
	hardError(t, mustParse(t, []byte(`{"payload": {"__sessionId": {"type": "address"}}, "rules": []}`)), nil,
		Sources{Meta: map[string]any{"__sessionId": uint64(5)}}, "inputs", "meta.__sessionId", "cannot cast uint64 5 to address")
}
