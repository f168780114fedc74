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
}

// Executor runs one step. XRC-137 rule evaluation is one implementation; a
// scripted one drives tests and simulation.
type Executor interface {
	Execute(ctx context.Context, e Execution) (Result, error)
}
