package session

import (
	"errors"
	"fmt"
)

// Kind says why a start was refused, or that it could not be decided: the
// one vocabulary every front door maps to its own surface (docs/operating.md
// "Starting a session" has the table).
type Kind string

// The kinds, in the order Start checks them.
const (
	// KindInvalidRequest: a field of the request is malformed (an owner that
	// is not an address, a pin that is not a hash, no step, a reserved key, a
	// negative window).
	KindInvalidRequest Kind = "invalid-request"
	// KindPayloadTooLarge: the payload is over the store's size cap.
	KindPayloadTooLarge Kind = "payload-too-large"
	// KindPayloadInvalid: the payload is not one JSON object, nests too
	// deeply, repeats a name, or has a malformed "__wakeUp" allow list.
	KindPayloadInvalid Kind = "payload-invalid"
	// KindAuthorityRequired: the registry is on chain, and the Starter has
	// no Authority to check the runner on it (it runs without a chain).
	KindAuthorityRequired Kind = "authority-required"
	// KindNotAuthorized: the runner is neither owner nor executor of the
	// registry or of a rule contract the orchestration references.
	KindNotAuthorized Kind = "runner-not-authorized"
	// KindUnknownOrchestration: the source has no such orchestration (a
	// trigger waits for it to be indexed).
	KindUnknownOrchestration Kind = "unknown-orchestration"
	// KindHashMismatch: the orchestration's text is not the pinned hash.
	KindHashMismatch Kind = "ostc-hash-mismatch"
	// KindUnknownStep: the start step is not a step of the orchestration.
	KindUnknownStep Kind = "unknown-step"
	// KindRuleUnresolved: a step's rule reference resolves to no rule
	// contract and no rule file as the runtime resolves it.
	KindRuleUnresolved Kind = "rule-unresolved"
	// KindStaleRoot: the request names a root pid (a permit's sessionId)
	// that is not the owner's next one.
	KindStaleRoot Kind = "stale-session-id"
	// KindQuota: the start would take its owner over one of its quotas
	// (live sessions, starts per minute, live processes; docs/operating.md
	// "Tenancy"); the error is a *joinstore.QuotaError naming it. A later
	// start may pass once the owner's sessions finish.
	KindQuota Kind = "quota-exceeded"
	// KindUnavailable: the store, the node or the source failed; nothing
	// was decided and a retry with the same key may pass.
	KindUnavailable Kind = "unavailable"
)

// Kinds lists every kind, in the order Start checks them; each front door's
// mapping table covers all of them.
var Kinds = []Kind{KindInvalidRequest, KindPayloadTooLarge, KindPayloadInvalid, KindAuthorityRequired, KindNotAuthorized,
	KindUnknownOrchestration, KindHashMismatch, KindUnknownStep, KindRuleUnresolved, KindStaleRoot, KindQuota, KindUnavailable}

// Error is a start that was refused, or that could not be decided
// (KindUnavailable); either way nothing was written.
type Error struct {
	Kind Kind
	// Path is the JSON path of what was refused: a field of the Request
	// (owner, registry, ostcId, ostcHash, step, key, window, rootPid), a
	// place in the payload (payload.__wakeUp.steps.A1), or a step's rule
	// reference in the orchestration (structure.A1.rule); "" for
	// KindUnavailable.
	Path string
	// Allowed says what would be accepted at Path.
	Allowed string
	// Err says what was wrong; errors.Is and errors.As reach it
	// (reactor.ErrHashMismatch, *authority.Error,
	// joinstore.ErrPayloadTooLarge, …).
	Err error
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// KindOf is err's kind, "" when err is not a start's *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// refuse is a refusal of kind at path.
func refuse(kind Kind, path, allowed string, err error) *Error {
	return &Error{Kind: kind, Path: path, Allowed: allowed, Err: err}
}

// invalid is a malformed request field: path, what was wrong, what is
// allowed.
func invalid(path, allowed, format string, args ...any) *Error {
	return refuse(KindInvalidRequest, path, allowed, fmt.Errorf("%s: %s: want %s", path, fmt.Sprintf(format, args...), allowed))
}

// unavailable is a start that could not be decided: what failed.
func unavailable(what string, err error) *Error {
	return &Error{Kind: KindUnavailable, Err: fmt.Errorf("%s: %w", what, err)}
}
