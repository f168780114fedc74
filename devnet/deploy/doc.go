// Package deploy puts orchestrations and their XRC-137 rules on a chain,
// for the development and test commands (xgr dev, xgr scenario run): every
// rule deployed as its own XRC-137 contract, each orchestration's step
// "rule" fields rewritten to those contracts (registry.Rewrite) and
// registered in an XRC-729 registry, the recorded hash checked against the
// text's. RuleFiles finds a rule directory's files for every step before
// anything is deployed; Plan deploys a test plan's bundle, its setup
// contracts compiled with the pinned solc-js (devnet/solc).
package deploy
