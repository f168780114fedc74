// Package ruleexec is the XRC-137 step executor: a reactor.Executor that
// loads the rule a step names (rulesource: a file map or the contract on
// chain), evaluates it with rule.Evaluate (API calls and contract reads
// through the configured callers, the execution's engine meta keys such as
// [__sessionId] as rule.Sources.Meta) and maps the outcome to a
// reactor.Result.
//
// Mapping: the selected branch gives Valid (onValid) or not (onInvalid),
// its outcome payload is the Output, its waitSec the Wait and its resolved
// wakeUps the WakeUps, which the engine performs; each names as Rule the
// XRC-137 contract the rule was loaded from (checksummed hex), or "" for a
// rule read from a file. Soft-invalid reasons become Result.Reasons. A
// rule that cannot be loaded, or a contract read that gets no answer,
// because the node is down, times out or rate-limits is a *TransientError
// (Temporary() is true: the step may be retried). Hard errors of the
// evaluation, rules that cannot be loaded for a definite reason, a wake-up
// sessionId beyond the engine's session ids (2^63-1), and abortStep /
// cancelSession rules that hold are errors, so the process aborts (a
// cancelSession one wraps reactor.ErrCancelSession: the session is
// cancelled). The
// branch sections this executor does not perform (execution, grants,
// encryptLogs, logExpireDays) are named in Result.NotPerformed and logged
// at info; a holding cancelSession rule is logged at warn.
//
// A rule whose either branch says encryptLogs seals its steps
// (reactor.Result.Sealed, evidence.RuleSeals): every result of it says so,
// an error's too once the rule was loaded (with its evidence, so that the
// aborted step's bundle is sealed and names the rule's hash), and the
// engine then keeps the step's payload values out of its timeline, logs
// and process record (docs/runtime.md, sealed steps).
package ruleexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Executor runs steps as XRC-137 rules. Set the fields before the first
// Execute; it is then safe for concurrent use.
type Executor struct {
	// Rules resolves a step's "rule" (required).
	Rules rulesource.Source
	// API performs apiCalls (e.g. a *rule.HTTPCaller with the allowed
	// hosts); nil fails every call, so their aliases take their defaults.
	API rule.APICaller
	// Reads performs contractReads (e.g. a *chain.Reads); nil fails every
	// read, so their saveAs slots take their defaults.
	Reads rule.ContractReader
	// Fallback runs steps whose rule no source covers
	// (rulesource.ErrNotCovered); nil makes such steps hard errors.
	Fallback reactor.Executor
	// Timeout bounds one execution: loading and evaluating, API calls and
	// contract reads included (0: DefaultTimeout; negative: none beyond
	// the caller's context and the per-call timeouts). A step over it
	// aborts with the reason.
	Timeout time.Duration
	// Clock measures the evaluation's stage timings (nil: none).
	Clock func() time.Time
	// Log receives the info and warn records (nil: slog.Default()).
	Log *slog.Logger
	// Observe, when set, sees every evaluation that completed (valid,
	// invalid, or ended by an abortStep/cancelSession rule): the execution,
	// the rule it loaded and the full evaluation result (inputs after
	// casts, extracted API and contract-read values). It runs on the
	// executing goroutine and must not modify its arguments.
	Observe func(e reactor.Execution, l *rulesource.Loaded, res *rule.Result)
	// Evidence: the driver stores log bundles, so every result carries its
	// reactor.EvidenceInput (the rule, the API and contract-read saves, the
	// selected branch's logExpireDays, encryptLogs and grants) and those
	// sections are performed, not reported NotPerformed. A branch whose
	// grant names no address as written aborts the step.
	Evidence bool
}

// ActionError is a typed rule that held: the step ends without a branch.
type ActionError struct {
	Step   string
	Origin string
	Action rule.Action
}

func (e *ActionError) Error() string {
	if e.Action.Type == rule.RuleCancelSession {
		return fmt.Sprintf("step %s: %s: rules[%d] (%s) holds: the session is cancelled", e.Step, e.Origin, e.Action.Rule, e.Action.Type)
	}
	return fmt.Sprintf("step %s: %s: rules[%d] (%s) holds: the step aborts", e.Step, e.Origin, e.Action.Rule, e.Action.Type)
}

// Redacted implements reactor.RedactedError: the error names the rule
// that held and quotes no payload value.
func (e *ActionError) Redacted() string { return e.Error() }

// Unwrap makes a holding cancelSession rule reactor.ErrCancelSession, so
// that the engine cancels the whole session (XRC-137 spec §7.3).
func (e *ActionError) Unwrap() error {
	if e.Action.Type == rule.RuleCancelSession {
		return reactor.ErrCancelSession
	}
	return nil
}

// TransientError is a step that could not be run for a reason that may
// pass: the rule could not be loaded, or a contract read it depends on got
// no answer, because the node (or the rule cache) was down, timed out,
// rate-limited or failed with a server error (rule.ErrUnavailable). The
// step has no outcome; an engine keeps it waiting and retries it.
// Temporary reports true, so callers can tell it apart without importing
// this package. Definite answers (no code at the address, a hash
// mismatch, a broken or encrypted document, a reverted read, which takes
// its defaults) are never TransientErrors.
type TransientError struct {
	Step string
	Err  error
}

func (e *TransientError) Error() string {
	return fmt.Sprintf("step %s: temporarily unable to run (retry later): %v", e.Step, e.Err)
}

// Unwrap returns the cause, which wraps rule.ErrUnavailable.
func (e *TransientError) Unwrap() error { return e.Err }

// Temporary reports that retrying the step may succeed.
func (e *TransientError) Temporary() bool { return true }

// Transient marks the error for the session machine: the step is run again
// after a backoff instead of aborting (reactor's retry of steps that could
// not be decided). Unlike Temporary, which the standard library's timeouts
// also report, only this type has it.
func (e *TransientError) Transient() bool { return true }

// DefaultTimeout bounds one step's execution when Executor.Timeout is 0:
// room for every API call and contract read of a rule at their own
// timeouts, far beyond what its expressions may take.
const DefaultTimeout = 5 * time.Minute

// ErrStepTimeout: a step's execution ran past Executor.Timeout.
var ErrStepTimeout = errors.New("step timed out")

// Execute implements reactor.Executor. A panic while the rule is loaded or
// evaluated is an error of the step (it aborts), never the replica's end.
func (x *Executor) Execute(ctx context.Context, e reactor.Execution) (res reactor.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = reactor.Result{}, fmt.Errorf("step %s: evaluating the rule failed: %v", e.Step.ID, p)
		}
	}()
	timeout := x.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout,
			fmt.Errorf("%w: step %s ran longer than %s", ErrStepTimeout, e.Step.ID, timeout))
		defer cancel()
	}
	return x.execute(ctx, e)
}

func (x *Executor) execute(ctx context.Context, e reactor.Execution) (reactor.Result, error) {
	l, err := x.Rules.Load(ctx, e.Step.Rule)
	if errors.Is(err, rulesource.ErrNotCovered) && x.Fallback != nil {
		return x.Fallback.Execute(ctx, e)
	}
	if errors.Is(err, rule.ErrUnavailable) {
		return reactor.Result{}, &TransientError{Step: e.Step.ID, Err: err}
	}
	if err != nil {
		return reactor.Result{}, fmt.Errorf("step %s: %w", e.Step.ID, err)
	}
	res, err := rule.Evaluate(ctx, l.Doc, e.Payload, rule.Sources{API: x.API, Reads: x.Reads, Clock: x.Clock, Meta: e.Meta()})
	if cause := context.Cause(ctx); err == nil && errors.Is(cause, ErrStepTimeout) {
		// Calls cut short by the timeout took their defaults: the outcome
		// is not the rule's.
		err = cause
	}
	if errors.Is(err, rule.ErrUnavailable) {
		return x.failed(l, &TransientError{Step: e.Step.ID, Err: fmt.Errorf("%s: %w", l.Origin, err)})
	}
	if err != nil {
		return x.failed(l, fmt.Errorf("step %s: %s: %w", e.Step.ID, l.Origin, err))
	}
	if x.Observe != nil {
		x.Observe(e, l, res)
	}
	return x.result(e, l, res)
}

// failed is the Result of a step whose rule was loaded and which then
// fails with err: the rule, its hash and whether its logs are sealed, so
// that the aborted (or retried) step's bundle is sealed and its details
// are redacted as its rule asks (reactor.Result.Sealed).
func (x *Executor) failed(l *rulesource.Loaded, err error) (reactor.Result, error) {
	out := reactor.Result{Sealed: evidence.RuleSeals(l.Doc), ValidationGas: l.Doc.Gas(rule.GasOptions{}).NoBranch}
	if x.Evidence {
		out.Evidence = x.evidenceOf(l, evidence.Policy{Encrypt: out.Sealed})
	}
	return out, err
}

// evidenceOf is the bundle's part of a loaded rule under policy pol.
func (x *Executor) evidenceOf(l *rulesource.Loaded, pol evidence.Policy) *reactor.EvidenceInput {
	ev := &reactor.EvidenceInput{Rule: l.Ref, Policy: pol}
	if a := ruleAddress(l); a != "" {
		ev.Rule = strings.ToLower(a)
	}
	if l.Hash != (common.Hash{}) {
		ev.RuleHash = l.Hash.Hex()
	}
	return ev
}

// result maps a rule's result to the step's (reactor.Result).
func (x *Executor) result(e reactor.Execution, l *rulesource.Loaded, res *rule.Result) (reactor.Result, error) {
	log := x.Log
	if log == nil {
		log = slog.Default()
	}
	if res.Action != nil {
		ae := &ActionError{Step: e.Step.ID, Origin: l.Origin, Action: *res.Action}
		if res.Action.Type == rule.RuleCancelSession {
			log.Warn("XRC-137 cancelSession holds; the session is cancelled", "pid", e.Pid, "step", e.Step.ID, "rule", l.Origin, "index", res.Action.Rule)
		}
		return x.failed(l, ae)
	}
	out := reactor.Result{
		Valid:         res.Valid,
		Output:        res.Output,
		Wait:          time.Duration(res.WaitSec) * time.Second,
		NotPerformed:  res.NotPerformed.Sections(),
		Execution:     res.Execution,
		Sealed:        evidence.RuleSeals(l.Doc),
		ValidationGas: StepGas(l.Doc, e.Step, res.Valid),
	}
	if x.Evidence {
		pol, err := evidence.PolicyOf(res.NotPerformed)
		if err != nil {
			return x.failed(l, fmt.Errorf("step %s: %s: %s.%w", e.Step.ID, l.Origin, res.Branch, err))
		}
		// A rule that seals either branch seals every bundle of its steps.
		pol.Encrypt = pol.Encrypt || out.Sealed
		ev := x.evidenceOf(l, pol)
		ev.APISaves, ev.ContractSaves = evidence.Saves(l.Doc, res.Extracted)
		out.Evidence, out.NotPerformed = ev, nil
	}
	if res.Execution != nil {
		// Kept with the executing step for the revert flip (reactor.Flip).
		out.RuleContract = common.HexToAddress(ruleAddress(l))
		out.Inputs, out.Extracted = res.Inputs, res.Extracted
	}
	for _, r := range res.Reasons {
		out.Reasons = append(out.Reasons, r.String())
	}
	for i, w := range res.WakeUps {
		if w.SessionID > math.MaxInt64 {
			return x.failed(l, fmt.Errorf("step %s: %s: %s.wakeUps[%d].sessionId: %d is beyond the engine's session ids [1, 2^63-1]",
				e.Step.ID, l.Origin, res.Branch, i, w.SessionID))
		}
		out.WakeUps = append(out.WakeUps, reactor.WakeUp{Runner: w.Runner, Session: int64(w.SessionID), Step: w.StepID, Payload: w.Payload, Rule: ruleAddress(l)})
	}
	if len(out.NotPerformed) > 0 {
		log.Info("XRC-137 branch sections not performed", "pid", e.Pid, "step", e.Step.ID, "rule", l.Origin,
			"branch", res.Branch, "sections", out.NotPerformed)
	}
	return out, nil
}

// ruleAddress is the XRC-137 contract a rule was read from, or "" for a
// rule read from a file.
func ruleAddress(l *rulesource.Loaded) string {
	if l.File != "" || l.Address == (common.Address{}) {
		return ""
	}
	return l.Address.Hex()
}

// StepGas is the validation gas of a step of doc that took the branch
// valid says (rule.Document.Gas), its wait priced by the children the
// orchestration step spawns on that branch.
func StepGas(doc *rule.Document, step *registry.Step, valid bool) uint64 {
	var opt rule.GasOptions
	if step != nil {
		if step.OnValid != nil {
			opt.ValidSpawns = len(step.OnValid.Spawns)
		}
		if step.OnInvalid != nil {
			opt.InvalidSpawns = len(step.OnInvalid.Spawns)
		}
	}
	g := doc.Gas(opt)
	return g.Branch(valid).Total
}
