package reactor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
)

// Outcome is one scripted step result.
type Outcome struct {
	// Result is "valid", "invalid", "error" (a hard error: the process
	// aborts) or "cancel" (the step cancels its session, as a holding
	// XRC-137 cancelSession rule does).
	Result  string         `json:"result"`
	Payload map[string]any `json:"payload,omitempty"`
	WaitSec float64        `json:"waitSec,omitempty"`
	DelayMs int            `json:"delayMs,omitempty"`
	// WakeUps are performed after the step commits, as an XRC-137
	// branch's wakeUps are.
	WakeUps []WakeUp `json:"wakeUps,omitempty"`
	// Execution, when set, gives the branch an execution to
	// ScriptedTarget whose calldata is this word: what a scripted
	// actuator (execution/scripted.ByCallData) makes of it — "success",
	// "revert", "revert-flip" (a revert whose onInvalid branch executes
	// too, ScriptedFlip), "refuse" or "transient" (a failed send and poll
	// first).
	Execution string `json:"execution,omitempty"`
}

// ScriptedTarget is the contract a scripted execution calls.
var ScriptedTarget = common.HexToAddress("0x00000000000000000000000000000000000e0ec0")

// ScriptedFlip renders a scripted step's onInvalid branch after its
// execution reverted: output {"flipped": step}, and for "revert-flip" an
// execution of its own ("success").
var ScriptedFlip = FlipFunc(func(_ context.Context, e Execution, f Flip) (Result, error) {
	r := Result{Output: map[string]any{"flipped": e.Step.ID}}
	if f.Inputs["execution"] == "revert-flip" {
		r.Execution = &execution.Call{To: ScriptedTarget, Data: []byte("success")}
	}
	return r, nil
})

// Scripted is an Executor that plays outcomes from a script: per step one
// outcome, or a list used by successive executions of that step (the last
// one repeats), and an optional "default" for every other step.
type Scripted struct {
	mu    sync.Mutex
	steps map[string][]Outcome
	used  map[string]int
	// Sleep is called with DelayMs and the execution's context; nil means
	// no delay (virtual time). SleepContext stops early when the context
	// ends; time.Sleep-like functions let a draining replica finish.
	Sleep func(context.Context, time.Duration)
}

// ErrScripted is the hard error a scripted "error" outcome produces.
var ErrScripted = errors.New("scripted hard error")

// errScriptedCancel is what a scripted "cancel" outcome returns.
var errScriptedCancel = fmt.Errorf("scripted cancel: %w", ErrCancelSession)

// ParseOutcomes reads an outcomes document: {"STEP": outcome | [outcome...], "default": outcome}.
// Payload numbers keep their text (json.Number).
func ParseOutcomes(raw []byte) (*Scripted, error) {
	var doc map[string]json.RawMessage
	if err := unmarshalExact(raw, &doc); err != nil {
		return nil, fmt.Errorf("outcomes: %w", err)
	}
	s := &Scripted{steps: map[string][]Outcome{}, used: map[string]int{}}
	for step, v := range doc {
		var list []Outcome
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
			if err := unmarshalExact(v, &list); err != nil {
				return nil, fmt.Errorf("outcomes.%s: %w", step, err)
			}
		} else {
			var o Outcome
			if err := unmarshalExact(v, &o); err != nil {
				return nil, fmt.Errorf("outcomes.%s: %w", step, err)
			}
			list = []Outcome{o}
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("outcomes.%s: empty list", step)
		}
		for i, o := range list {
			switch o.Result {
			case "valid", "invalid", "error", "cancel":
			default:
				return nil, fmt.Errorf("outcomes.%s[%d].result: %q is not valid, invalid, error or cancel", step, i, o.Result)
			}
			switch o.Execution {
			case "", "success", "revert", "revert-flip", "refuse", "transient":
			default:
				return nil, fmt.Errorf("outcomes.%s[%d].execution: %q is not success, revert, revert-flip, refuse or transient", step, i, o.Execution)
			}
		}
		s.steps[step] = list
	}
	return s, nil
}

// SleepContext sleeps for d or until ctx ends: delays a simulation can be
// stopped in (Ctrl-C, --timeout).
func SleepContext(ctx context.Context, d time.Duration) { sleepCtx(ctx, d) }

// Execute implements Executor.
func (s *Scripted) Execute(ctx context.Context, e Execution) (Result, error) {
	s.mu.Lock()
	list, ok := s.steps[e.Step.ID]
	if !ok {
		list, ok = s.steps["default"]
	}
	if !ok {
		s.mu.Unlock()
		return Result{}, fmt.Errorf("no scripted outcome for step %s and no default", e.Step.ID)
	}
	n := s.used[e.Step.ID]
	s.used[e.Step.ID] = n + 1
	o := list[min(n, len(list)-1)]
	s.mu.Unlock()
	if o.DelayMs > 0 && s.Sleep != nil {
		s.Sleep(ctx, time.Duration(o.DelayMs)*time.Millisecond)
	}
	switch o.Result {
	case "error":
		return Result{}, ErrScripted
	case "cancel":
		return Result{}, errScriptedCancel
	}
	r := Result{Valid: o.Result == "valid", Output: o.Payload, Wait: time.Duration(o.WaitSec * float64(time.Second)), WakeUps: o.WakeUps}
	if o.Execution != "" {
		r.Execution = &execution.Call{To: ScriptedTarget, Data: []byte(o.Execution)}
		r.Inputs = map[string]any{"execution": o.Execution}
	}
	return r, nil
}
