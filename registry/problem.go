package registry

import "github.com/xgr-sidecar/xgr/internal/jsondoc"

// Problem is one finding about a document: where it is (JSON path and
// line:column) and what is wrong.
type Problem = jsondoc.Problem

// Problem codes. They are part of the CLI's --json output and stay stable.
const (
	CodeSyntax        = jsondoc.CodeSyntax
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
	// CodeDefaulted: a field the orchestration spec requires is missing
	// (join mode, waitonjoin, from[].when); xgr applied its default.
	CodeDefaulted = "defaulted"
)

// ValidationError is returned by Parse for a rejected document: every
// problem found, not just the first, and the warnings.
type ValidationError = jsondoc.Invalid
