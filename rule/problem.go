package rule

import "github.com/xgr-sidecar/xgr/internal/jsondoc"

// Problem is one finding about a rule document: where it is (JSON path and
// line:column) and what is wrong.
type Problem = jsondoc.Problem

// Problem codes. They are part of the CLI's --json output and stay stable.
const (
	CodeSyntax       = jsondoc.CodeSyntax
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
	CodeBody         = "body"
	CodeSignature    = "signature"
	CodeRuleType     = "rule-type"
	CodeRange        = "range"
	CodeAddress      = "address"
	CodeValueExpr    = "value-expr"
	CodeStringForm   = "string-form"
	// CodeOrder: a contract read or API call uses a key that only a later
	// source produces.
	CodeOrder = "order"
	// CodeReturns (an error): a contract read's saveAs cannot tell where the
	// returned tuple ends (no return types, no string or bytes slot).
	CodeReturns = "returns"
)

// ValidationError is returned by Parse for a rejected document: every
// problem found, not just the first, and the warnings.
type ValidationError = jsondoc.Invalid
