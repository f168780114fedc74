package ruleexec

import (
	"context"
	"errors"
	"fmt"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Flip implements reactor.Flipper: the onInvalid branch of a step whose
// execution reverted (XRC-137 spec §8.5.3), rendered by rule.Reverted from
// the inputs and extracted values the step kept, without calling an API
// or reading a contract again. A step whose rule the sources do not cover
// flips as the fallback's scripted outcomes do.
func (x *Executor) Flip(ctx context.Context, e reactor.Execution, f reactor.Flip) (res reactor.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = reactor.Result{}, fmt.Errorf("step %s: rendering onInvalid after the revert failed: %v", e.Step.ID, p)
		}
	}()
	l, err := x.Rules.Load(ctx, e.Step.Rule)
	if errors.Is(err, rulesource.ErrNotCovered) && x.Fallback != nil {
		return reactor.ScriptedFlip.Flip(ctx, e, f)
	}
	if errors.Is(err, rule.ErrUnavailable) {
		return reactor.Result{}, &TransientError{Step: e.Step.ID, Err: err}
	}
	if err != nil {
		return reactor.Result{}, fmt.Errorf("step %s: %w", e.Step.ID, err)
	}
	done := &rule.Result{Valid: true, Branch: "onValid", Inputs: f.Inputs, Extracted: f.Extracted}
	r, err := rule.Reverted(ctx, l.Doc, done, f.Reason, rule.Sources{Clock: x.Clock, Meta: e.Meta()})
	if err != nil {
		return x.failed(l, fmt.Errorf("step %s: %s: %w", e.Step.ID, l.Origin, err))
	}
	return x.result(e, l, r)
}
