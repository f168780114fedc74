package rule

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

var one = big.NewInt(1)

// wakeUp resolves one wake-up of the selected branch (spec §8.5): runner,
// sessionId, stepId and each payload value by Eval-or-Render. A missing key
// is soft-invalid (missingAt, like a branch payload value); a value that is
// present but malformed is a hard error naming the field and what it
// allows.
func (e *evaluation) wakeUp(w *WakeUp, base jsondoc.Path) (ResolvedWakeUp, *missingAt, error) {
	var r ResolvedWakeUp
	bad := func(field string, v any, allowed string) error {
		return &HardError{Stage: "outcome", Path: string(base.Key(field)),
			Err: fmt.Errorf("%s resolved to %s; %s", field, describeValue(v), allowed)}
	}

	v, miss, err := e.output(w.Runner, string(base.Key("runner")))
	if miss != nil || err != nil {
		return r, miss, err
	}
	runner, ok := v.(string)
	if !ok || !IsAddress(runner) {
		return r, nil, bad("runner", v, "a runner is the target session owner's address: 0x followed by 40 hex digits")
	}
	r.Runner = runner

	v, miss, err = e.output(w.SessionID, string(base.Key("sessionId")))
	if miss != nil || err != nil {
		return r, miss, err
	}
	var id *big.Int
	reason := "a boolean"
	if _, isBool := v.(bool); !isBool {
		id, reason = castInteger(v, one, maxUint64)
	}
	if id == nil {
		return r, nil, bad("sessionId", v, reason+"; a session id is a whole number in [1, 2^64-1], as a number or a decimal string")
	}
	r.SessionID = id.Uint64()

	v, miss, err = e.output(w.Step, string(base.Key("stepId")))
	if miss != nil || err != nil {
		return r, miss, err
	}
	step, ok := v.(string)
	if !ok || strings.TrimSpace(step) == "" {
		return r, nil, bad("stepId", v, "a step id is a non-empty string")
	}
	r.StepID = step

	if len(w.Payload) > 0 {
		kept := make(Outputs, 0, len(w.Payload))
		for _, f := range w.Payload {
			if !strings.HasPrefix(f.Key, "_") { // engine-reserved: dropped (warned at parse time)
				kept = append(kept, f)
			}
		}
		p, miss, err := e.outputs(kept, base.Key("payload"))
		if miss != nil || err != nil {
			return r, miss, err
		}
		r.Payload = p
	}
	return r, nil, nil
}
