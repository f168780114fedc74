package rule

import "time"

// XRC-137 document caps from XDaLa_Limits.md §3. A document over any of them
// is rejected by Parse (a hard abort in the engine's terms).
const (
	// MaxDocumentBytes is the largest rule document accepted (128 KiB).
	MaxDocumentBytes = 131072
	// MaxPayloadFields is the largest number of declared input fields.
	MaxPayloadFields = 64
	// MaxFieldNameLen is the longest payload, output, alias or saveAs key.
	MaxFieldNameLen = 64
	// MaxRules is the largest number of entries in "rules".
	MaxRules = 64
	// MaxRuleExprLen is the document parser's cap on expression strings,
	// in characters (XDaLa_Limits §4). It never decides on its own: the
	// CEL evaluator's MaxExprLen of 1024 bytes is stricter, and the limits
	// document (§13) requires both, so Parse checks expressions against
	// MaxExprLen alone and names both caps in the message.
	MaxRuleExprLen = 2048
	// MaxAPICalls is the largest number of "apiCalls".
	MaxAPICalls = 16
	// MaxURLTemplateLen is the longest "urlTemplate", in characters.
	MaxURLTemplateLen = 2048
	// MaxBodyTemplateLen is the longest "bodyTemplate", in characters.
	MaxBodyTemplateLen = 8192
	// MaxExtractMapEntries is the largest number of aliases in one "extractMap".
	MaxExtractMapEntries = 64
	// MaxStringValueLen is the longest string literal or default, in characters.
	MaxStringValueLen = 8192
	// MaxContractReads is the largest number of "contractReads".
	MaxContractReads = 16
	// MaxSaveAs is the largest number of "saveAs" targets of one contract read.
	MaxSaveAs = 64
	// MaxOutcomeKeys is the largest number of keys in a branch "payload".
	MaxOutcomeKeys = 64
	// MaxGrants is the largest number of "grants" of one branch.
	MaxGrants = 16
	// MaxExecArgs is the largest number of "execution.args" of one branch.
	MaxExecArgs = 16
)

// CEL evaluator caps from XDaLa_Limits.md §5 and the expression guide §8.
// Violations are hard errors, never soft-invalid.
const (
	// MaxExprLen is the longest raw expression compiled, in bytes.
	MaxExprLen = 1024
	// MaxASTNodes is the largest checked AST accepted.
	MaxASTNodes = 4096
	// MaxListCap is the longest list allowed anywhere in the values an
	// expression sees (inputs, extracted values, API responses), nested lists
	// included.
	MaxListCap = 64
	// MaxLevenshteinLen is the longest string the "lev" metric compares;
	// longer strings are at the sentinel distance Far.
	MaxLevenshteinLen = 256
)

// Caps of this implementation that the specifications leave open.
const (
	// MaxEvalCost bounds the work of one expression evaluation (cel-go
	// runtime cost units). It stops comprehensions nested over capped lists
	// from multiplying without bound; no expression of the public examples
	// comes near it.
	MaxEvalCost = 100_000
	// MaxValueBytes bounds the size of every value an expression builds: a
	// string, bytes, list or map (its text form, roughly; parts it holds
	// more than once count each time, as they would when rendered or
	// stored). It equals the default payload cap, since a larger value
	// could not be stored anyway. String concatenation and join are
	// refused before they allocate; lists and maps are measured as they
	// are built, once per evaluation; results are counted as they are
	// converted. Together with MaxEvalCost, which charges the operations
	// on strings, lists and maps by the bytes they build, read or walk, it
	// bounds the memory one evaluation can take to a few MiB.
	MaxValueBytes = 256 << 10
	// MaxOutputBytes bounds one output object: a branch payload, and each
	// wake-up payload, measured as JSON (keys, values and punctuation). It
	// equals the store's default payload cap (joinstore.DefaultMaxPayload),
	// which an output must fit to be stored or delivered. Every value in it
	// is at most MaxValueBytes, and templates are refused before they render
	// past it, so an evaluation never builds an output far over this cap.
	MaxOutputBytes = 256 << 10
	// MaxEvalTime bounds the wall-clock time of one expression evaluation,
	// checked between comprehension iterations. The caps above bound the
	// work deterministically (the heaviest capped expression, 20 quorums
	// over 64 strings with Levenshtein, runs in about a second, five under
	// the race detector on a loaded machine); this is a last line far
	// above them, so that load never turns a valid expression into an
	// error.
	MaxEvalTime = 30 * time.Second
	// MaxValueDepth bounds the nesting of values an expression sees.
	MaxValueDepth = 32
	// maxDocDepth bounds JSON nesting of the rule document itself.
	maxDocDepth = 32
)

// Far is the deterministic "very far" distance the helpers return where a
// distance is undefined (relDiff around zero, hamming of unequal lengths,
// Levenshtein over MaxLevenshteinLen).
const Far = 1e18

// maxWaitSec keeps waitSec within what a time.Duration can hold.
const maxWaitSec = 9_000_000_000
