// Package chain is xgr's wiring to an EVM node: dialling it, loading the
// signing key (from XGR_PRIVATE_KEY or an encrypted keystore file), sending
// transactions and waiting for a number of confirmations, turning reverts
// into errors that carry the contract's reason string, and typed clients for
// the XRC-729 registry and XRC-137 rule contracts built on the generated
// bindings in contracts/xrc729 and contracts/xrc137.
//
// It works against any Backend: a node reached over JSON-RPC
// (*ethclient.Client) or go-ethereum's in-process simulated chain.
package chain
