package registry

import (
	"fmt"
	"strings"
)

// Problem is one finding about a document: where it is and what is wrong.
type Problem struct {
	// Path is the JSON path of the offending value, e.g.
	// structure.A1.onValid.join.from[1].node; empty for the whole document.
	Path string `json:"path"`
	// Line and Col locate the value in the document (1-based; 0 when unknown).
	Line int `json:"line"`
	Col  int `json:"col"`
	// Code is a stable machine-readable name of the rule that was broken.
	Code string `json:"code"`
	// Message says what was found and what is allowed.
	Message string `json:"message"`
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", p.Line, p.Col)
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problem codes. They are part of the CLI's --json output and stay stable.
const (
	CodeSyntax        = "syntax"
	CodeTooLarge      = "too-large"
	CodeType          = "type"
	CodeRequired      = "required"
	CodeDuplicate     = "duplicate"
	CodeIdentifier    = "identifier"
	CodeUnknownStep   = "unknown-step"
	CodeLimit         = "limit"
	CodeMode          = "mode"
	CodeK             = "k"
	CodeWhen          = "when"
	CodePolicy        = "waitonjoin"
	CodeUnknownField  = "unknown-field"
	CodeRedundant     = "redundant"
	CodeRule          = "rule"
	CodeJoinScope     = "join-scope"
	CodeJoinNeverMet  = "join-unfulfillable"
	CodeSpawnRepeated = "spawn-repeated"
)

// ValidationError is returned by Parse for a rejected document. It carries
// every problem found, not just the first, and the warnings.
type ValidationError struct {
	Problems []Problem
	Warnings []Problem
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid orchestration: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid orchestration: %d problems", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}
