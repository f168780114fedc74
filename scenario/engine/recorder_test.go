package engine

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/scenario"
)

const recordedRule = `{"payload": {"AmountA": {"type": "int64"}},
 "apiCalls": [{"name": "sl", "method": "GET", "urlTemplate": "http://api.test.local/slow", "contentType": "json",
   "extractMap": {"Ok": {"type": "bool", "value": "bool(resp.ok)"}}}],
 "contractReads": [{"to": "0x5FbDB2315678afecb367f032d93F642f64180aa3", "function": "getValue()(uint256)",
   "saveAs": {"0": {"key": "readValue", "type": "int64", "default": 0}}}],
 "rules": ["[Ok] == true"]}`

// The recorder keeps, per owner and pid, the input an evaluation saw and
// the API and contract-read values it extracted (not the other extracted
// keys), with the reasons; a failed execution keeps what its evaluation
// saw and adds the error; a session's evaluations are its own.
func TestRecorder(t *testing.T) {
	doc, err := rule.Parse([]byte(recordedRule))
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	loaded := &rulesource.Loaded{Doc: doc}
	e := reactor.Execution{Owner: "0xAbC", Session: 7, Pid: "7:2", Payload: map[string]any{"AmountA": 5}}
	r.observe(e, loaded, &rule.Result{Extracted: map[string]any{"Ok": true, "readValue": int64(42), "other": 1},
		Reasons: []rule.Reason{{Path: "rules[0]", Message: "false"}}})
	other := reactor.Execution{Owner: "0xabc", Session: 70, Pid: "70:1", Payload: map[string]any{}}
	r.failed(other, errors.New("boom"))

	want := scenario.Evaluation{Input: map[string]any{"AmountA": 5}, API: map[string]any{"Ok": true}, Reads: map[string]any{"readValue": int64(42)},
		Reasons: []string{"rules[0]: false"}}
	if got := r.of("0xabc", 7); !reflect.DeepEqual(got, map[string]scenario.Evaluation{"7:2": want}) {
		t.Errorf("session 7: %+v", got)
	}
	// An abortStep rule: the evaluation was observed, then the execution failed.
	rec := recordingExecutor{Executor: failing{}, rec: r}
	if _, err := rec.Execute(context.Background(), e); err == nil {
		t.Fatal("the failing executor did not fail")
	}
	want.Error = "abortStep"
	if got := r.of("0xABC", 7)["7:2"]; !reflect.DeepEqual(got, want) {
		t.Errorf("after the failure: %+v", got)
	}
	if got := r.of("0xabc", 70); got["70:1"].Error != "boom" || len(got) != 1 {
		t.Errorf("session 70: %+v", got)
	}
}

type failing struct{}

func (failing) Execute(context.Context, reactor.Execution) (reactor.Result, error) {
	return reactor.Result{}, errors.New("abortStep")
}
