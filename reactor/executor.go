package reactor

import (
	"context"
	"errors"
	"time"

	"github.com/xgr-sidecar/xgr/registry"
)

// Execution is one step to execute.
type Execution struct {
	Owner string
	// Session is the root session id (the root pid) of the process.
	Session int64
	Pid     string
	Step    *registry.Step
	// Payload is the process's input (resumePlain).
	Payload       map[string]any
	Orchestration *registry.Orchestration
}

// Result is a step's outcome. An error from Execute is a hard error: the
// process aborts.
type Result struct {
	Valid bool
	// Output is overlaid on the input to form the next payload.
	Output map[string]any
	// Wait delays the spawned children (waitSec).
	Wait time.Duration
	// Reasons say why an invalid step is invalid (optional; shown in the
	// timeline).
	Reasons []string
	// NotPerformed names what the step asked for that the executor did not
	// carry out (optional; shown in the timeline), e.g. "2 grants".
	NotPerformed []string
	// WakeUps are the engine-internal wake-ups the selected branch asks
	// for, resolved (XRC-137 spec §8.5). The engine performs them once the
	// step is committed, exactly once per committed step.
	WakeUps []WakeUp
}

// WakeUp asks the engine to resume the processes of another session that
// are waiting on a step.
type WakeUp struct {
	// Runner is the target session's owner (an EVM address).
	Runner string `json:"runner"`
	// Session is the target's root session id (> 0).
	Session int64 `json:"sessionId"`
	// Step is the step the target's processes must be waiting on.
	Step string `json:"stepId"`
	// Payload is overlaid last on each woken process's payload (keys that
	// start with "_" are dropped); nil for none.
	Payload map[string]any `json:"payload,omitempty"`
	// Rule is the XRC-137 contract address that emitted the wake-up, which
	// a "fromXRC137" allow list binds to; "" when the step's rule is not a
	// contract (a file map, a scripted outcome).
	Rule string `json:"rule,omitempty"`
}

// Meta keys: the engine's read-only runtime values a rule may reference
// as [__sessionId] etc. They are never part of a payload unless a rule
// writes one to an output key.
const (
	MetaSessionID = "__sessionId" // root session id, uint64
	MetaOwner     = "__owner"     // session owner address, string
	MetaPid       = "__pid"       // this process, "<rootPid>:<iter>"
	MetaStepID    = "__stepId"    // the step being executed
	MetaOstcID    = "__ostcId"    // the orchestration id
)

// Meta returns the engine meta keys of this execution.
func (e Execution) Meta() map[string]any {
	m := map[string]any{
		MetaSessionID: uint64(e.Session),
		MetaOwner:     e.Owner,
		MetaPid:       e.Pid,
	}
	if e.Step != nil {
		m[MetaStepID] = e.Step.ID
	}
	if e.Orchestration != nil {
		m[MetaOstcID] = e.Orchestration.ID
	}
	return m
}

// ErrCancelSession marks an execution error that cancels the step's whole
// session (an XRC-137 cancelSession rule held, spec §7.3): the step is
// recorded aborted with the error's text and the session is killed with
// it, through the same bounded path as an operator's kill.
var ErrCancelSession = errors.New("the step cancels its session")

// Executor runs one step. XRC-137 rule evaluation is one implementation; a
// scripted one drives tests and simulation. An error aborts the step's
// process; one that wraps ErrCancelSession cancels the session.
type Executor interface {
	Execute(ctx context.Context, e Execution) (Result, error)
}

// FixedWait runs Exec and gives every result the same Wait, e.g. zero to
// run waitSec loops fast in a simulation.
type FixedWait struct {
	Exec Executor
	Wait time.Duration
}

// Execute implements Executor.
func (f FixedWait) Execute(ctx context.Context, e Execution) (Result, error) {
	r, err := f.Exec.Execute(ctx, e)
	if err == nil {
		r.Wait = f.Wait
	}
	return r, err
}
