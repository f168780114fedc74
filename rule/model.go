package rule

import (
	"encoding/json"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Document is a parsed, validated XRC-137 rule document. It is immutable
// after Parse and safe for concurrent use; every expression in it is
// compiled.
type Document struct {
	// Hash is keccak256 of the exact bytes parsed.
	Hash common.Hash
	// Payload declares the input fields in document order.
	Payload []*Field
	// APICalls run in array order after the contract reads (spec §6.1).
	APICalls []*APICall
	// ContractReads run in array order before the API calls (spec §6.1).
	ContractReads []*ContractRead
	// Rules are evaluated in order; all validate rules must hold.
	Rules []*Rule
	// OnValid and OnInvalid are never nil: an omitted branch is empty.
	OnValid   *Branch
	OnInvalid *Branch
	// Warnings lists what was accepted but looks unintended.
	Warnings []Problem

	fields map[string]*Field
}

// Field declares one input of the payload schema.
type Field struct {
	Name string
	Type Type
	// Default, cast to Type, applies when the caller omits the field or
	// gives it empty (null, "", [] or {}: Payload guide §6). A field
	// without a default is required.
	Default    any
	HasDefault bool
}

// Field returns the declared input field name, or nil.
func (d *Document) Field(name string) *Field { return d.fields[name] }

// APICall is one entry of "apiCalls".
type APICall struct {
	Name   string
	Method string
	// URL, Body and the header values are templates (rendered, never
	// evaluated as CEL) whose placeholders are escaped for where they stand
	// (see CallTemplate).
	URL         *CallTemplate
	Body        *CallTemplate
	Headers     []Header
	ContentType string
	// Timeout is timeoutMs; zero means the caller's default.
	Timeout time.Duration
	// Extract holds the extractMap aliases in document order.
	Extract []*Extract
}

// Header is one request header; its value is a template.
type Header struct {
	Name  string
	Value *CallTemplate
}

// Extract is one alias of an extractMap.
type Extract struct {
	Alias string
	// Type is the declared XRC type; TypeInvalid for the untyped string form.
	Type Type
	// Expr reads "resp" (the decoded response) and the environment; it was
	// written as "expr" or, as in the public examples, "value".
	Expr       *Expr
	Default    any
	HasDefault bool
	// Save is false when the entry says "save": false; the alias still
	// joins the environment but is not reported as an extracted value.
	Save bool
}

// ContractRead is one entry of "contractReads".
type ContractRead struct {
	RPC      string
	To       *Value
	Function string
	Args     []*TypedValue
	SaveAs   []*SaveAs

	returns []ReturnSlot // ReadRequest.Returns, built once at parse time
}

// SaveAs maps one return slot of a contract read to an environment key.
type SaveAs struct {
	Index      int
	Key        string
	Type       Type
	Default    any
	HasDefault bool
}

// TypedValue is a typed argument: contract read and execution args,
// execution value.
type TypedValue struct {
	Type       Type
	Value      *Value
	Default    any
	HasDefault bool
}

// MarshalJSON writes the argument as authored.
func (t *TypedValue) MarshalJSON() ([]byte, error) {
	out := map[string]any{"type": t.Type.String(), "value": t.Value}
	if t.HasDefault {
		out["default"] = t.Default
	}
	return json.Marshal(out)
}

// Value is a branch payload value or typed value: a JSON literal, or a
// string resolved by Eval-or-Render as a template or an expression.
type Value struct {
	// Kind tells how a string is resolved; meaningless for literals.
	Kind Kind
	// Literal holds a non-string JSON value (numbers as json.Number).
	Literal   any
	IsLiteral bool
	// Source is the string as written.
	Source   string
	Template *Template
	Expr     *Expr
}

// MarshalJSON writes the value as authored.
func (v *Value) MarshalJSON() ([]byte, error) {
	if v.IsLiteral {
		return json.Marshal(v.Literal)
	}
	return json.Marshal(v.Source)
}

// RuleType is the action of a rule.
type RuleType uint8

// The rule types of spec §7.3.
const (
	// RuleValidate must hold for the step to be valid.
	RuleValidate RuleType = iota
	// RuleAbortStep ends the step as aborted when its expression holds.
	RuleAbortStep
	// RuleCancelSession cancels the whole session when its expression holds.
	RuleCancelSession
)

var ruleTypeNames = [...]string{"validate", "abortStep", "cancelSession"}

func (t RuleType) String() string { return ruleTypeNames[t] }

// MarshalText writes the document spelling.
func (t RuleType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Rule is one entry of "rules".
type Rule struct {
	Index int
	Type  RuleType
	Expr  *Expr
}

// Branch is onValid or onInvalid.
type Branch struct {
	// Payload is the outcome payload, keys in document order.
	Payload Outputs
	// WaitSec is the post-step wait ("waitSec"), 0 when absent.
	WaitSec uint64

	// WakeUps are resolved by Evaluate (Result.WakeUps) and performed by
	// the engine.
	WakeUps []*WakeUp

	// Execution is resolved by Evaluate (Result.Execution) and performed
	// by the engine.
	Execution *Execution

	// Parsed and validated, not performed by this package.
	Grants        []*Grant
	LogExpireDays *uint64
	EncryptLogs   *bool
}

// OutputField is one key of a branch payload.
type OutputField struct {
	Key   string
	Value *Value
}

// Execution is a branch's inner transaction (spec §8.3) as written.
// Evaluate resolves the selected branch's execution into
// Result.Execution (see the execution resolution rules there); the engine
// performs it.
type Execution struct {
	To       *Value        `json:"to"`
	GasLimit *uint64       `json:"gasLimit,omitempty"`
	Function string        `json:"function,omitempty"`
	Args     []*TypedValue `json:"args,omitempty"`
	Value    *TypedValue   `json:"value,omitempty"`
	Extras   any           `json:"extras,omitempty"`

	sig *ExecSignature // Function parsed at Parse; nil for no function or a hand-built Execution
}

// Grant is one access grant of a branch (not performed).
type Grant struct {
	Address    *Value `json:"address"`
	Rights     uint8  `json:"rights"`
	ExpireDays uint64 `json:"expireDays,omitempty"`
}

// Rights bits of a grant.
const (
	RightRead   = 1
	RightWrite  = 2
	RightManage = 4
)

// WakeUp is an engine-internal wake-up request of a branch (spec §8.5).
// Runner, SessionID, Step and the payload values are resolved by
// Eval-or-Render when the branch is selected.
type WakeUp struct {
	Runner    *Value `json:"runner"`
	SessionID *Value `json:"sessionId"`
	// StepID is "stepId" as written; Step is how it resolves.
	StepID  string  `json:"stepId"`
	Step    *Value  `json:"-"`
	Payload Outputs `json:"payload,omitempty"`
}

// Outputs is an ordered list of output keys.
type Outputs []OutputField

// MarshalJSON writes the fields as one object, in document order.
func (o Outputs) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
