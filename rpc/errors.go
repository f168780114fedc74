package rpc

import (
	"errors"
	"fmt"

	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// JSON-RPC error codes of the gateway. Every refusal carries one of them
// and, in its data, a stable reason (and the JSON path where one applies),
// so clients can tell every refusal apart.
const (
	// CodeInvalidParams: a request field is missing or malformed (JSON-RPC's
	// own code).
	CodeInvalidParams = -32602
	// CodeInternal: the gateway could not do its part (Redis or the node
	// failed); nothing was decided.
	CodeInternal = -32000
	// CodePermit: the permit is refused (data.reason is the permit package's
	// code: signer-mismatch, expired, chain-id-mismatch, expiry-too-far,
	// unbound-permit, request-mismatch (a bound permit signed for another
	// request), …).
	CodePermit = -32001
	// CodeUnauthorized: the permit is valid, but its signer may not do this
	// (not the session's runner, not on the allow list).
	CodeUnauthorized = -32002
	// CodeReplay: the permit was used before.
	CodeReplay = -32003
	// CodeNotFound: no such session, process or orchestration.
	CodeNotFound = -32004
	// CodeConflict: the request does not fit the state (the permit's
	// sessionId is not the signer's next root id, the orchestration's hash
	// is not the signed one, a process is not waiting).
	CodeConflict = -32005
	// CodeLimit: the connection has too many requests in flight.
	CodeLimit = -32006
	// CodeRegistryNotServed: the XRC-729 registry is not one this gateway
	// serves (not followed, and --rpc-any-registry is off); nothing was
	// read from the chain or written.
	CodeRegistryNotServed = -32007
	// CodeRunnerNotAuthorized: the SessionPermit's signer, who would run
	// the session, is neither owner nor executor (getExecutorList) of the
	// XRC-729 registry or of a rule contract the orchestration references
	// (an owner-only contract, without getExecutorList, admits its owner
	// only). data names the contract, its kind, the runner and the owner;
	// nothing was written.
	CodeRunnerNotAuthorized = -32008
	// CodeRuleUnresolved: a step's rule reference (${addr:ALIAS}, <NAME>,
	// or another form) does not resolve to a rule contract or a rule file
	// as the runtime resolves it (the operator's addresses: bindings, its
	// --rules directory, 0x addresses), so the runner's authority on it
	// cannot be decided. data names the orchestration, the step and the
	// reference; nothing was written.
	CodeRuleUnresolved = -32009
)

// Error is a gateway refusal: a JSON-RPC error with a code, a message and
// data {reason, path?, …}.
type Error struct {
	Code   int
	Msg    string
	Reason string
	Path   string
	// Extra is merged into the error data.
	Extra map[string]any
}

func (e *Error) Error() string { return e.Msg }

// ErrorCode implements go-ethereum's rpc.Error.
func (e *Error) ErrorCode() int { return e.Code }

// ErrorData implements go-ethereum's rpc.DataError.
func (e *Error) ErrorData() any {
	d := map[string]any{"reason": e.Reason}
	if e.Path != "" {
		d["path"] = e.Path
	}
	for k, v := range e.Extra {
		d[k] = v
	}
	return d
}

func fail(code int, reason, path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return &Error{Code: code, Msg: msg, Reason: reason, Path: path}
}

func invalid(path, format string, args ...any) *Error {
	return fail(CodeInvalidParams, "invalid-params", path, format, args...)
}

func internal(what string, err error) *Error {
	return &Error{Code: CodeInternal, Msg: what + ": " + err.Error(), Reason: "internal"}
}

// permitError turns a permit refusal into a gateway error.
func permitError(err error) *Error {
	return permitErrorFor(err, "the gateway runs with --rpc-require-bound-permits, XGR_RPC_REQUIRE_BOUND_PERMITS")
}

// permitErrorFor is permitError with unboundNote, which says what made the
// gateway refuse an unbound permit, added to an unbound-permit refusal.
func permitErrorFor(err error, unboundNote string) *Error {
	var pe *permit.Error
	if errors.As(err, &pe) {
		code := CodePermit
		if pe.Code == permit.CodeConfig {
			code = CodeInternal
		}
		msg := "permit refused: " + pe.Error()
		switch pe.Code {
		case permit.CodeExpiryTooFar:
			msg += " (the gateway's permit lifetime cap: --rpc-permit-lifetime, XGR_RPC_PERMIT_LIFETIME)"
		case permit.CodeUnbound:
			msg += " (" + unboundNote + ")"
		}
		return &Error{Code: code, Msg: msg, Reason: string(pe.Code), Path: pe.Path}
	}
	return internal("permit", err)
}
