package ruleexec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/ruleexec"
)

const settle = `{
  "payload": {"Amount": {"type": "int64"}},
  "rules": ["[Amount] > 0"],
  "onValid": {"payload": {"Paid": "[Amount]"},
    "execution": {"to": "0x00000000000000000000000000000000000000aa", "function": "settle(uint256)", "args": [{"type": "uint256", "value": "[Amount]"}]}},
  "onInvalid": {"payload": {"Refund": "[Amount]"}, "waitSec": 5,
    "execution": {"to": "0x00000000000000000000000000000000000000bb", "function": "refund(uint256)", "args": [{"type": "uint256", "value": "[Amount]"}]}}
}`

// A step whose execution reverted flips: the onInvalid branch is rendered
// from the inputs the step kept, with its own execution, and the revert's
// reason among the step's reasons.
func TestFlipRendersOnInvalid(t *testing.T) {
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Settle.json": settle})}
	e := step("<Settle>", map[string]any{"Amount": 7})
	done, err := x.Execute(context.Background(), e)
	if err != nil || !done.Valid || done.Execution == nil || done.Execution.Function != "settle(uint256)" || done.Inputs == nil {
		t.Fatalf("valid step: %+v %v", done, err)
	}
	flipped, err := x.Flip(context.Background(), e, reactor.Flip{Inputs: done.Inputs, Extracted: done.Extracted, RuleContract: done.RuleContract, Reason: "reverted: amount too high"})
	if err != nil {
		t.Fatal(err)
	}
	if flipped.Valid || flipped.Execution == nil || flipped.Execution.Function != "refund(uint256)" || flipped.Wait.Seconds() != 5 {
		t.Fatalf("flipped step: %+v", flipped)
	}
	if v, ok := flipped.Output["Refund"]; !ok || v == nil {
		t.Fatalf("onInvalid's payload: %v", flipped.Output)
	}
	if !strings.Contains(strings.Join(flipped.Reasons, "; "), "amount too high") {
		t.Fatalf("reasons %q do not carry the revert's", flipped.Reasons)
	}
}
