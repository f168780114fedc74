// Package contracts holds xgr's Solidity sources (XRC729.sol, XRC137.sol,
// XRC563.sol, the read-key registry, and MetaReader.sol, the indexer's
// helper that is run without being deployed), their compiled artifacts in
// build/ (make contracts) and the generated Go bindings in xrc729/,
// xrc137/, xrc563/ and metareader/ (make bindings).
// Neither artifacts nor bindings are edited by hand; `make contracts-check`
// rebuilds both and fails on any difference.
//
// The tests here pin the contracts to the public XRC-729, XRC-137 and
// XRC-563 (read keys) standards: every selector and event topic equals the one computed from the
// standards' signatures, and the behaviour (events, versions, revert
// reasons) is exercised on a real anvil chain.
package contracts
