// Package rule is the pure core of the XRC-137 step executor.
//
// It parses and validates XRC-137 rule documents (every problem reported by
// JSON path and line:column, every cap of XDaLa_Limits.md §3 enforced),
// casts input payloads to the 14 XRC types, compiles the document's CEL
// expressions once (with the evaluator caps of XDaLa_Limits.md §5 and the
// helper functions of the expression guide), and evaluates a step in the
// order of the rule document spec §6.1: inputs, contract reads, API calls,
// rules, branch selection, outcome payload, wait (spec §2 lists API calls
// first; see Evaluate).
//
// Evaluation does no IO of its own. HTTP calls and contract reads go through
// the APICaller and ContractReader interfaces the caller supplies; HTTPCaller
// is the net/http implementation with a host policy. Given the same document,
// payload and source answers, Evaluate returns the same result. Timings are
// measured only with a clock the caller passes in.
//
// The selected branch's wakeUps are resolved and validated into
// Result.WakeUps, and its execution is resolved and ABI-encoded into
// Result.Execution, for the engine to perform; Reverted applies onInvalid
// after an onValid execution reverted. Parsed but not performed (kept on
// the Document and reported in Result.NotPerformed): grants, encryptLogs
// and logExpireDays.
//
// Document.Gas prices a step in validation gas, the public engine heuristic
// v0.2 (base, inputs, contract reads, API calls and extracts, rules, outcome
// keys, execution preparation, encryptLogs, waits × spawns, clamped to
// GasMin..GasMax), as a GasBreakdown naming every component.
//
// Numbers are exact on every path: undeclared integers stay int64, uint64
// or (beyond) exact big integers, uint256 / int256 values are big integers
// in expressions and decimal strings outside them, and a value that is one
// placeholder is passed through unchanged.
package rule
