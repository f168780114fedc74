package sched

import (
	"context"
	"fmt"
)

// PID identifies a process for the lifetime of its scheduler. PIDs are
// allocated from 1 upwards and never reused.
type PID uint64

// Process is a state machine the scheduler runs. The scheduler never calls
// two methods of one process at the same time, and calls them in the order
// Init, Step…, Close.
type Process interface {
	// Init prepares the process to run its entry point method with input.
	// ctx lives as long as the scheduler (it is cancelled when Shutdown
	// returns) and carries the process's PID (PIDOf). Init runs on Submit's
	// goroutine; when it fails, Submit returns the error and the process is
	// neither run nor closed.
	Init(ctx context.Context, method string, input any) error
	// Step advances the state machine with the events that arrived since
	// the last step (none on the first) and writes the resulting status and
	// any yields into out. Neither events nor out may be retained after
	// Step returns. An error ends the process as if it completed.
	Step(events []Event, out *StepOutput) error
	// Close releases the process's resources. It is called exactly once for
	// every process whose Init succeeded: after its last Step, or by
	// Shutdown for a process that did not finish in time.
	Close()
}

// EventType says what an Event carries.
type EventType uint8

// Event types.
const (
	// EventYieldComplete: a yield the process issued completed; Tag is the
	// yield's tag, Data its result, Error its failure.
	EventYieldComplete EventType = iota + 1
	// EventMessage: another party sent Data to the process's PID.
	EventMessage
	// EventCancel: the process should finish (Shutdown, Cancel); Error says why.
	EventCancel
)

func (t EventType) String() string {
	switch t {
	case EventYieldComplete:
		return "yield_complete"
	case EventMessage:
		return "message"
	case EventCancel:
		return "cancel"
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Event is one input to a Step.
type Event struct {
	Type EventType
	// Tag correlates a yield completion with its yield.
	Tag uint64
	// Data is a yield's result or a message's payload.
	Data any
	// Error is a failed yield's error, or the reason for a cancellation.
	Error error
}

// Status is a process's state after a step, as the process reports it.
type Status uint8

// Statuses a step reports. The zero Status is not one of them: a step that
// returns without setting one fails the process.
const (
	// StatusRunning: the process wants another step right away (it yielded
	// the worker to let others run). It steps again even without events.
	StatusRunning Status = iota + 1
	// StatusBlocked: the process waits for the completion of its yields.
	StatusBlocked
	// StatusIdle: the process waits for messages.
	StatusIdle
	// StatusComplete: the process is done; it is closed after its yields
	// are dispatched.
	StatusComplete
)

func (s Status) String() string {
	switch s {
	case StatusRunning:
		return "running"
	case StatusBlocked:
		return "blocked"
	case StatusIdle:
		return "idle"
	case StatusComplete:
		return "complete"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Yield is a command a process hands to the scheduler's Handler. The
// handler reports its outcome with CompleteYield(pid, Tag, …).
type Yield struct {
	// Tag is chosen by the process to recognise the completion.
	Tag     uint64
	Command any
}

// StepOutput is what a step writes: its status and its yields. The
// scheduler resets it before every step and reuses its memory.
type StepOutput struct {
	Status Status
	Yields []Yield
}

// Yield appends a command to dispatch with the given correlation tag.
func (o *StepOutput) Yield(tag uint64, command any) {
	o.Yields = append(o.Yields, Yield{Tag: tag, Command: command})
}

func (o *StepOutput) reset() {
	clear(o.Yields)
	o.Yields = o.Yields[:0]
	o.Status = 0
}

// Completer receives yield outcomes. *Scheduler implements it.
type Completer interface {
	// CompleteYield delivers the outcome of the yield tagged tag of process
	// pid. It may be called from any goroutine, also from inside Dispatch.
	CompleteYield(pid PID, tag uint64, data any, err error) error
}

// Handler dispatches the yields of processes. The scheduler calls Dispatch
// on the worker that ran the step, once per yield in the order of the
// step's output, before the process is parked. A handler may complete the
// yield at once (inside Dispatch) or later from any goroutine; either way
// it reports the outcome through c exactly once. Dispatch should not block
// for long: the worker waits for it.
type Handler interface {
	Dispatch(c Completer, pid PID, y Yield)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(c Completer, pid PID, y Yield)

// Dispatch calls f.
func (f HandlerFunc) Dispatch(c Completer, pid PID, y Yield) { f(c, pid, y) }
