package rule

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
)

// Result is the outcome of evaluating one step.
type Result struct {
	// Valid tells which branch was selected. A step is valid when all
	// required inputs are present, every validate rule holds and nothing was
	// soft-invalid.
	Valid bool `json:"valid"`
	// Branch is "onValid" or "onInvalid", or "" when a typed rule ended the step.
	Branch string `json:"branch"`
	// Action is set when an abortStep or cancelSession rule held; the step
	// then has no branch, output or wait.
	Action *Action `json:"action,omitempty"`
	// Output is the selected branch's outcome payload.
	Output map[string]any `json:"output"`
	// WakeUps are the selected branch's wake-ups, resolved and validated
	// (spec §8.5), for the engine to perform.
	WakeUps []ResolvedWakeUp `json:"wakeUps,omitempty"`
	// MetaOnly is set when the invalid branch's payload or wake-ups were
	// soft-invalid themselves: the step is invalid, Output is empty and
	// there are no WakeUps.
	MetaOnly bool `json:"metaOnly,omitempty"`
	// WaitSec is the selected branch's waitSec.
	WaitSec uint64 `json:"waitSec"`
	// Reasons say why the step is invalid (missing inputs, false rules,
	// soft-invalid values), in pipeline order.
	Reasons []Reason `json:"reasons"`
	// Inputs is the input environment after casts and defaults.
	Inputs map[string]any `json:"inputs"`
	// Extracted holds the API extract aliases and contract read keys that
	// were produced (or defaulted), as cast.
	Extracted map[string]any `json:"extracted"`
	// Calls, Reads and Rules report each stage.
	Calls []CallReport `json:"apiCalls,omitempty"`
	Reads []ReadReport `json:"contractReads,omitempty"`
	Rules []RuleReport `json:"rules,omitempty"`
	// Timings are measured with Sources.Clock.
	Timings Timings `json:"timings"`
	// NotPerformed is what the selected branch asks for that this package
	// parses but does not perform.
	NotPerformed NotPerformed `json:"notPerformed"`
	// Execution is the selected branch's execution, resolved and encoded
	// (nil when the branch has none): the engine performs it (package
	// execution).
	Execution *execution.Call `json:"execution,omitempty"`
}

// ResolvedWakeUp is a wake-up of the selected branch with every field
// resolved by Eval-or-Render (spec §8.5): resume the processes of session
// SessionID of Runner that wait on StepID, overlaying Payload.
type ResolvedWakeUp struct {
	// Runner is the target session's owner: 0x and 40 hex digits.
	Runner string `json:"runner"`
	// SessionID is the target's root session id (> 0).
	SessionID uint64 `json:"sessionId"`
	// StepID is the step the target's processes must wait on (not empty).
	StepID string `json:"stepId"`
	// Payload is the resolved wake-up payload (keys starting with "_" are
	// dropped); nil when there is none.
	Payload map[string]any `json:"payload,omitempty"`
}

// Action is a typed rule that held.
type Action struct {
	Type RuleType `json:"type"`
	// Rule is the index in "rules".
	Rule int `json:"rule"`
}

// Reason codes.
const (
	ReasonMissingInput = "missing-input"
	ReasonRuleFalse    = "rule-false"
	ReasonSoftInvalid  = "soft-invalid"
)

// Reason is one cause of invalidity.
type Reason struct {
	Code    string   `json:"code"`
	Path    string   `json:"path,omitempty"`
	Keys    []string `json:"keys,omitempty"`
	Message string   `json:"message"`
}

func (r Reason) String() string {
	if r.Path != "" {
		return r.Path + ": " + r.Message
	}
	return r.Message
}

// CallReport tells what one API call did.
type CallReport struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	URL    string `json:"url,omitempty"`
	Status int    `json:"status,omitempty"`
	// Error is why the call failed, if it did.
	Error string `json:"error,omitempty"`
	// Defaulted lists aliases that took their default; SoftInvalid those
	// that had none.
	Defaulted   []string `json:"defaulted,omitempty"`
	SoftInvalid []string `json:"softInvalid,omitempty"`
	Duration    Duration `json:"duration"`
}

// ReadReport tells what one contract read did.
type ReadReport struct {
	Index       int      `json:"index"`
	To          string   `json:"to,omitempty"`
	Function    string   `json:"function"`
	Error       string   `json:"error,omitempty"`
	Defaulted   []string `json:"defaulted,omitempty"`
	SoftInvalid []string `json:"softInvalid,omitempty"`
	Duration    Duration `json:"duration"`
}

// RuleReport tells how one rule evaluated.
type RuleReport struct {
	Index int      `json:"index"`
	Type  RuleType `json:"type"`
	// Result is the rule's value; false when keys were missing.
	Result  bool     `json:"result"`
	Missing []string `json:"missing,omitempty"`
	// Skipped is set when required inputs were missing (rules are not run).
	Skipped bool `json:"skipped,omitempty"`
}

// Timings of the pipeline stages.
type Timings struct {
	Total         Duration `json:"total"`
	Inputs        Duration `json:"inputs"`
	APICalls      Duration `json:"apiCalls"`
	ContractReads Duration `json:"contractReads"`
	Rules         Duration `json:"rules"`
	Outcome       Duration `json:"outcome"`
}

// Duration marshals as text such as "1.25ms".
type Duration time.Duration

// MarshalJSON writes the duration as Go duration text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d Duration) String() string { return time.Duration(d).String() }

// NotPerformed lists the selected branch's sections that are parsed and
// validated but not carried out (wake-ups are resolved into
// Result.WakeUps and the execution into Result.Execution instead, for the
// engine to perform).
type NotPerformed struct {
	Grants        []*Grant `json:"grants,omitempty"`
	LogExpireDays *uint64  `json:"logExpireDays,omitempty"`
	EncryptLogs   *bool    `json:"encryptLogs,omitempty"`
}

// Sections describes what was left undone, one short phrase per section
// in document order, e.g. "2 grants",
// "encryptLogs=true"; nil when nothing was.
func (n NotPerformed) Sections() []string {
	var parts []string
	if k := len(n.Grants); k > 0 {
		parts = append(parts, fmt.Sprintf("%d grants", k))
	}
	if n.EncryptLogs != nil {
		parts = append(parts, fmt.Sprintf("encryptLogs=%v", *n.EncryptLogs))
	}
	if n.LogExpireDays != nil {
		parts = append(parts, fmt.Sprintf("logExpireDays=%d", *n.LogExpireDays))
	}
	return parts
}

// Empty reports whether nothing was left undone.
func (n NotPerformed) Empty() bool {
	return len(n.Grants) == 0 && n.LogExpireDays == nil && n.EncryptLogs == nil
}

// HardError aborts a step: a schema or type violation of the input, an
// expression that fails for reasons other than missing keys, a broken
// evaluator cap. Result (partial) is returned alongside it.
type HardError struct {
	// Stage is "inputs", "apiCalls", "contractReads", "rules" or "outcome".
	Stage string
	// Path locates the failing element, e.g. rules[2] or onValid.payload.Seq.
	Path string
	Err  error
}

func (e *HardError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Stage, e.Path, e.Err)
}

func (e *HardError) Unwrap() error { return e.Err }
