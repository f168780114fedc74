// Package permit verifies and signs XDaLa permits: EIP-712 typed-data
// signatures (eth_signTypedData_v4) that authorize xgr_* JSON-RPC calls
// without a transaction. It knows four kinds, as the XDaLa Permit Catalog
// and the XGR endpoint reference define them:
//
//	SessionPermit    domain {name "XDaLa SessionPermit", version "1", chainId}
//	                 message {from, ostcId, ostcHash, sessionId, maxTotalGas, expiry}
//	ControlPermit    domain {name, version, chainId, verifyingContract}
//	                 message {from, sessionId, action, [stepId,] expiry}
//	ControlPermitV2  domain as ControlPermit
//	                 message {from, runner, sessionId, action, stepId, expiry}
//	xdalaPermit      domain {name, version, chainId}
//	                 message {from, expiry}
//
// A permit arrives as the JSON envelope {domain, types, primaryType,
// message, signature} that ethers.js, viem and MetaMask produce. Verify
// parses it strictly (exact member sets, canonical type definitions,
// numbers kept exact), hashes it with go-ethereum's apitypes, recovers the
// signer and judges the expiry against a clock it is given. Every refusal
// is an *Error with a stable Code, the JSON path of the offending value
// and what is allowed there.
//
// SignSession, SignControl and SignXdala produce the same envelopes for the
// Go client and for tests. The package does no IO and reads no clock: the
// only secret it touches is the signing key it is handed. Authority (is the
// signer the orchestration's owner, the session's runner, on its allow
// list?) and replay protection (Verified.Digest) are the gateway's.
package permit
