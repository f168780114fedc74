package reactor

import (
	"context"
	"time"

	"github.com/xgr-sidecar/xgr/registry"
)

// Execution is one step to execute.
type Execution struct {
	Owner string
	Pid   string
	Step  *registry.Step
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
}

// Executor runs one step. XRC-137 rule evaluation is one implementation; a
// scripted one drives tests and simulation.
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
