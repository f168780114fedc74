package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/scenario"
)

// recorder keeps what the XRC-137 executor saw of each evaluation: the
// input payload and the extracted API and contract-read values, by owner
// and pid (the store keeps only each process's next payload).
type recorder struct {
	mu    sync.Mutex
	evals map[string]scenario.Evaluation
}

func (r *recorder) observe(e reactor.Execution, l *rulesource.Loaded, res *rule.Result) {
	ev := scenario.Evaluation{Input: map[string]any{}, API: map[string]any{}, Reads: map[string]any{}}
	for k, v := range e.Payload {
		ev.Input[k] = v
	}
	for _, call := range l.Doc.APICalls {
		for _, x := range call.Extract {
			if v, ok := res.Extracted[x.Alias]; ok {
				ev.API[x.Alias] = v
			}
		}
	}
	for _, read := range l.Doc.ContractReads {
		for _, s := range read.SaveAs {
			if v, ok := res.Extracted[s.Key]; ok {
				ev.Reads[s.Key] = v
			}
		}
	}
	for _, why := range res.Reasons {
		ev.Reasons = append(ev.Reasons, why.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.evals == nil {
		r.evals = map[string]scenario.Evaluation{}
	}
	r.evals[strings.ToLower(e.Owner)+"#"+e.Pid] = ev
}

// failed records an execution that ended in an error (the process aborts).
func (r *recorder) failed(e reactor.Execution, err error) {
	ev := scenario.Evaluation{Input: map[string]any{}, Error: err.Error()}
	for k, v := range e.Payload {
		ev.Input[k] = v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.evals == nil {
		r.evals = map[string]scenario.Evaluation{}
	}
	key := strings.ToLower(e.Owner) + "#" + e.Pid
	if prev, ok := r.evals[key]; ok { // an abortStep rule: keep what the evaluation saw
		prev.Error = ev.Error
		ev = prev
	}
	r.evals[key] = ev
}

// of returns the evaluations of one owner's session by pid.
func (r *recorder) of(owner string, session int64) map[string]scenario.Evaluation {
	r.mu.Lock()
	defer r.mu.Unlock()
	prefix := fmt.Sprintf("%s#%d:", strings.ToLower(owner), session)
	out := map[string]scenario.Evaluation{}
	for k, v := range r.evals {
		if strings.HasPrefix(k, prefix) {
			out[strings.TrimPrefix(k, strings.ToLower(owner)+"#")] = v
		}
	}
	return out
}

// recordingExecutor records the executions that fail.
type recordingExecutor struct {
	reactor.Executor
	rec *recorder
}

func (x recordingExecutor) Execute(ctx context.Context, e reactor.Execution) (reactor.Result, error) {
	res, err := x.Executor.Execute(ctx, e)
	if err != nil {
		x.rec.failed(e, err)
	}
	return res, err
}
