// Package permit verifies and signs XDaLa permits: EIP-712 typed-data
// signatures (eth_signTypedData_v4) that authorize xgr_* JSON-RPC calls
// without a transaction. It knows the four kinds of the XDaLa Permit
// Catalog and the XGR endpoint reference, and three bound kinds of its own
// that also sign the request they authorize:
//
//	SessionPermit    domain {name "XDaLa SessionPermit", version "1", chainId}
//	                 message {from, ostcId, ostcHash, sessionId, maxTotalGas, expiry}
//	ControlPermit    domain {name "XDaLa Control", version "1", chainId, verifyingContract}
//	                 message {from, sessionId, action, [stepId,] expiry}
//	ControlPermitV2  domain as ControlPermit
//	                 message {from, runner, sessionId, action, stepId, expiry}
//	xdalaPermit      domain {name "XDaLa Permit", version "1", chainId}
//	                 message {from, expiry}
//	SessionPermitV2  domain as SessionPermit
//	                 message {from, registry, ostcId, ostcHash, startStep,
//	                          payloadHash, sessionId, maxTotalGas, expiry}
//	ControlPermitV3  domain as ControlPermit
//	                 message {from, runner, sessionId, action, stepId, pid,
//	                          payloadHash, expiry}
//	GrantPermit      domain as xdalaPermit
//	                 message {from, rid, scope, entriesHash, expiry}
//
// Domain names and versions are pinned to these. payloadHash is
// PayloadHash of the request's payload (keccak256 of its canonical text,
// as JSON.stringify writes it), entriesHash EntriesHash of an
// xgr_manageGrants request's entries and references (keccak256 of their
// ABI encoding); a bound permit verifies only together with the request
// it signs (Expect.Request). An expiry may lie at most
// Expect.MaxLifetime in the future (DefaultMaxLifetime, 1 h).
//
// A permit arrives as the JSON envelope {domain, types, primaryType,
// message, signature} that ethers.js, viem and MetaMask produce. Verify
// parses it strictly (exact member sets, canonical type definitions,
// numbers kept exact), hashes it with go-ethereum's apitypes, recovers the
// signer and judges the expiry against a clock it is given. Every refusal
// is an *Error with a stable Code, the JSON path of the offending value
// and what is allowed there.
//
// SignSession, SignSessionV2, SignControl, SignControlV3, SignXdala and
// SignGrant produce the same envelopes for the Go client and for tests. The package
// does no IO and reads no clock: the only secret it touches is the signing
// key it is handed. Authority (is the
// signer the orchestration's owner, the session's runner, on its allow
// list?) and replay protection (Verified.Digest) are the gateway's.
package permit
