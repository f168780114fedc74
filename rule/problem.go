package rule

import (
	"fmt"
	"strings"
)

// Problem is one finding about a rule document: where it is and what is wrong.
type Problem struct {
	// Path is the JSON path of the offending value, e.g.
	// apiCalls[0].extractMap.Price.type; empty for the whole document.
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
	CodeSyntax       = "syntax"
	CodeTooLarge     = "too-large"
	CodeType         = "type"
	CodeRequired     = "required"
	CodeDuplicate    = "duplicate"
	CodeIdentifier   = "identifier"
	CodeLimit        = "limit"
	CodeUnknownField = "unknown-field"
	CodeForbidden    = "forbidden-field"
	CodeXRCType      = "xrc-type"
	CodeDefault      = "default"
	CodeExpression   = "expression"
	CodePlaceholder  = "placeholder"
	CodeMethod       = "method"
	CodeContentType  = "content-type"
	CodeURL          = "url"
	CodeHeader       = "header"
	CodeSignature    = "signature"
	CodeRuleType     = "rule-type"
	CodeRange        = "range"
	CodeAddress      = "address"
	CodeValueExpr    = "value-expr"
	CodeStringForm   = "string-form"
)

// ValidationError is returned by Parse for a rejected document. It carries
// every problem found, not just the first, and the warnings.
type ValidationError struct {
	Problems []Problem
	Warnings []Problem
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid rule document: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid rule document: %d problems", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}
