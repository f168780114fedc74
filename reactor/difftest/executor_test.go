package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/xgr-sidecar/xgr/reactor"
)

// loopKey is the payload key in which threadExec counts the executions of
// a step along one line of descent.
func loopKey(step string) string { return "loop." + step }

// threadExec plays the scripted outcomes of a case so that what a process
// gets does not depend on the order the driver runs processes in: a step
// with a list of outcomes gets element n at its n-th execution along its
// line of descent (the count travels in the payload, key loop.STEP, and so
// through joins), not at the n-th execution in the session, which two
// drivers reach in different orders. Each element is played by a
// reactor.Scripted of its own. A step with one outcome adds no key.
type threadExec struct {
	steps map[string][]*reactor.Scripted
}

// newExecutor returns the executor of one driver's run of a case: a plain
// reactor.Scripted of the document (threaded false), or a threadExec. sleep
// plays delayMs (nil: none).
func newExecutor(doc outcomes, threaded bool, sleep func(context.Context, time.Duration)) (reactor.Executor, error) {
	if !threaded {
		s, err := reactor.ParseOutcomes(doc.JSON())
		if err != nil {
			return nil, err
		}
		s.Sleep = sleep
		return s, nil
	}
	x := &threadExec{steps: map[string][]*reactor.Scripted{}}
	for st, list := range doc {
		for i, o := range list {
			raw, err := json.Marshal(map[string]reactor.Outcome{"default": o})
			if err != nil {
				return nil, err
			}
			s, err := reactor.ParseOutcomes(raw)
			if err != nil {
				return nil, fmt.Errorf("outcomes.%s[%d]: %w", st, i, err)
			}
			s.Sleep = sleep
			x.steps[st] = append(x.steps[st], s)
		}
	}
	return x, nil
}

// Execute implements reactor.Executor.
func (x *threadExec) Execute(ctx context.Context, e reactor.Execution) (reactor.Result, error) {
	list, ok := x.steps[e.Step.ID]
	if !ok {
		if list, ok = x.steps["default"]; !ok {
			return reactor.Result{}, fmt.Errorf("no scripted outcome for step %s and no default", e.Step.ID)
		}
	}
	if len(list) == 1 {
		return list[0].Execute(ctx, e)
	}
	key := loopKey(e.Step.ID)
	n := int64(0)
	if v, ok := e.Payload[key].(json.Number); ok {
		n, _ = v.Int64()
	}
	res, err := list[min(n, int64(len(list)-1))].Execute(ctx, e)
	if err != nil {
		return res, err
	}
	out := make(map[string]any, len(res.Output)+1)
	for k, v := range res.Output {
		out[k] = v
	}
	out[key] = json.Number(fmt.Sprint(n + 1))
	res.Output = out
	return res, nil
}
