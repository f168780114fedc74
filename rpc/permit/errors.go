package permit

import "errors"

// Code names the rule a refused permit broke. Codes are stable: the gateway
// puts them in JSON-RPC error data and clients may switch on them.
type Code string

// The refusal codes. Every error Verify returns is an *Error with one of them.
const (
	// CodeMalformed: the permit is not JSON, is too large or too deeply
	// nested, a value has the wrong JSON type for its place in the envelope,
	// a member name repeats, or the envelope or message has a member that
	// is not part of it.
	CodeMalformed Code = "malformed"
	// CodeMissing: a required member (domain, types, primaryType, message,
	// signature, domain.name/version/chainId, a non-address message field)
	// is absent or null. Missing addresses have CodeAddress.
	CodeMissing Code = "missing"
	// CodeUnknownPrimaryType: primaryType names no permit kind, or a kind
	// the caller does not accept here (Expect.Kinds).
	CodeUnknownPrimaryType Code = "unknown-primary-type"
	// CodeUnbound: primaryType is an unbound kind (SessionPermit,
	// ControlPermit, ControlPermitV2, xdalaPermit) where the caller
	// requires its bound version (Expect.RequireBound).
	CodeUnbound Code = "unbound-permit"
	// CodeTypesMismatch: types[primaryType] or types.EIP712Domain is not
	// the canonical definition, or types holds other entries.
	CodeTypesMismatch Code = "types-mismatch"
	// CodeDomainMismatch: domain.name or domain.version is not the kind's
	// pinned one ("XDaLa SessionPermit", "XDaLa Control" or "XDaLa Permit",
	// version "1"), or the domain has a member the kind does not use.
	CodeDomainMismatch Code = "domain-mismatch"
	// CodeChainIDMismatch: domain.chainId is not the chain id this node serves.
	CodeChainIDMismatch Code = "chain-id-mismatch"
	// CodeVerifyingContractMismatch: a control permit's
	// domain.verifyingContract is not the configured control-domain address.
	CodeVerifyingContractMismatch Code = "verifying-contract-mismatch"
	// CodeAddress: an address (message.from, message.runner,
	// domain.verifyingContract) is missing, not "0x" and 40 hex digits, fails
	// its EIP-55 checksum, or is the zero address where a signer is named.
	CodeAddress Code = "bad-address"
	// CodeInvalidValue: a message or domain value has the wrong form: a number
	// that is not an integer, a bytes32 that is not 32 bytes of hex, an
	// action outside kill, wake, pause, resume.
	CodeInvalidValue Code = "invalid-value"
	// CodeOutOfRange: an integer is negative, wider than 256 bits, or a
	// sessionId outside 1..2^63-1 (xgr root ids are int64).
	CodeOutOfRange Code = "out-of-range"
	// CodeSignature: the signature is not "0x" and 130 hex digits (65 bytes),
	// its v is not 0, 1, 27 or 28, r or s is out of range, s is in the upper
	// half of the curve order (a malleable signature), or it recovers to no key.
	CodeSignature Code = "bad-signature"
	// CodeSignerMismatch: the signature is well formed but recovers to an
	// address other than message.from: another key signed, or a signed
	// field was changed afterwards.
	CodeSignerMismatch Code = "signer-mismatch"
	// CodeExpired: message.expiry (plus the allowed clock skew) is before now.
	CodeExpired Code = "expired"
	// CodeExpiryTooFar: message.expiry lies further in the future than the
	// lifetime cap allows (Expect.MaxLifetime past now plus the skew).
	CodeExpiryTooFar Code = "expiry-too-far"
	// CodeRequestMismatch: a bound permit (SessionPermitV2, ControlPermitV3)
	// signs another registry, start step, process id or payload hash than
	// the request it came with (Expect.Request); the path names the field.
	CodeRequestMismatch Code = "request-mismatch"
	// CodeConfig: the Expect given to Verify is unusable (no chain id, no
	// clock, a skew or lifetime cap out of range, no control-domain address
	// for a control permit, no Request for a bound permit).
	// It is the caller's fault, not the permit's.
	CodeConfig Code = "config"
)

// Error is a refused permit: which rule it broke, where, and what is allowed.
type Error struct {
	// Code is the stable name of the broken rule.
	Code Code
	// Path is the JSON path of the offending value, rooted at the permit's
	// own path (Expect.Path, "permit" by default): permit.message.expiry,
	// permit.types.SessionPermit[2]. Empty for CodeConfig.
	Path string
	// Msg says what was found and what is allowed.
	Msg string
}

// Error returns "path: message".
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// CodeOf returns the Code of err when it is (or wraps) an *Error, and ""
// otherwise.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Codes lists every refusal code, in the order they are declared.
func Codes() []Code {
	return []Code{
		CodeMalformed, CodeMissing, CodeUnknownPrimaryType, CodeUnbound, CodeTypesMismatch,
		CodeDomainMismatch, CodeChainIDMismatch, CodeVerifyingContractMismatch,
		CodeAddress, CodeInvalidValue, CodeOutOfRange, CodeSignature,
		CodeSignerMismatch, CodeExpired, CodeExpiryTooFar, CodeRequestMismatch, CodeConfig,
	}
}
