package reactor

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
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
// process aborts; the Result returned with it is read only for Sealed and
// Evidence (the rule that was loaded, its hash and whether its logs are
// sealed), so that the aborted step's bundle and details follow them.
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
	// Execution is the selected branch's execution, resolved and encoded
	// (nil: none). With executions on (Manager.Actuator, Runner.Actuator)
	// the step executes it before its branch applies (docs/runtime.md, the
	// execution lifecycle); off, it is reported not performed.
	Execution *execution.Call
	// RuleContract is the step's XRC-137 contract (zero for a rule not read
	// from chain): the execution's scope.
	RuleContract common.Address
	// Inputs and Extracted are the evaluation's input environment and
	// extracted values: what the onInvalid branch is rendered from when
	// the execution reverts (Flipper), kept with the executing step.
	Inputs, Extracted map[string]any
	// Evidence is what the step's log bundle needs from the evaluation
	// (nil: the executor evaluated no rule). Used only when the driver
	// stores bundles (Manager.Bundles, Runner.Bundles).
	Evidence *EvidenceInput
	// ValidationGas is the step's validation gas (rule.Document.Gas for
	// the branch taken, or the rule's common part for a step that took
	// none; 0 when no rule was evaluated). The commit counts it, with the
	// execution's gas used, against the session's gas budget.
	ValidationGas uint64
	// Sealed says the step's rule asks for sealed logs (either branch
	// says encryptLogs): its bundle is sealed whatever its outcome, and no
	// timeline detail, log line or process record quotes a value of its
	// payload (see RedactedError). A branch policy that says encryptLogs
	// seals the step too.
	Sealed bool
}

// Flip is what a step whose execution reverted keeps of its evaluation:
// the onInvalid branch is rendered from it, never by evaluating the rule
// again.
type Flip struct {
	Inputs, Extracted map[string]any
	RuleContract      common.Address
	// Reason says why the execution reverted (its decoded reason, or the
	// receipt's status), for the flipped step's reasons.
	Reason string
}

// Flipper renders a step's onInvalid branch after its execution reverted
// (XRC-137 spec §8.5.3: the step's validity flips to invalid). The Result
// is that branch's outcome (Valid is taken as false); its Execution, when
// set, is the onInvalid branch's own, performed at most once. An error
// that reports Transient() is retried after a backoff; another aborts the
// step.
type Flipper interface {
	Flip(ctx context.Context, e Execution, f Flip) (Result, error)
}

// FlipFunc adapts a function to Flipper.
type FlipFunc func(ctx context.Context, e Execution, f Flip) (Result, error)

// Flip implements Flipper.
func (f FlipFunc) Flip(ctx context.Context, e Execution, fl Flip) (Result, error) {
	return f(ctx, e, fl)
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
