// Package rulesource loads the XRC-137 rule document a step's "rule" names.
//
// A reference is resolved first through a local file map (Dir, for
// simulation and tests), then, for a 0x address, from the XRC-137 contract
// on chain (Chain). Chain rules are read over eth_call: ruleJson, ruleHash
// and isEncrypted at one block; keccak256(ruleJson) must equal ruleHash, and
// parsed documents are cached by (address, ruleHash), so a step costs one
// ruleHash call while the rule is unchanged. Encrypted rules (isEncrypted,
// or text that is an XGR1 envelope) are refused with ErrEncrypted unless
// the Chain has an Opener: then the envelope is opened (KeyOpener: xgr's
// read key and the DEK its READ grant wraps, package envelope) and the
// plaintext parsed; an opened rule is opened again at every load, so a
// revoked or expired grant (ErrNoGrant) stops it at the next step.
//
// The file map: in a directory, an optional rules.json maps references
// exactly as the orchestration writes them ("0x…" addresses compared
// case-insensitively, "${addr:ALIAS}" aliases, deployer placeholders such as
// "<Iterationstep-Addr>") to a rule file (a path relative to the directory)
// or to a contract address (read from chain):
//
//	{"<Iterationstep-Addr>": "Iterationstep.json",
//	 "${addr:FEED}": "feeds/coinbase.json",
//	 "<Quorum-Addr>": "0x5FbDB2315678afecb367f032d93F642f64180aa3"}
//
// A reference rules.json does not name is looked up as a file named after
// it: 0x1234….json for an address (any letter case), ALIAS.json for
// ${addr:ALIAS}, NAME.json for <NAME>. Such names may use letters, digits,
// '.', '_' and '-' and do not start with '.'. Files are read once per Dir.
//
// Outside simulation, ${addr:ALIAS} and <NAME> references are bound to
// rule contracts by the operator's config (Addresses, the "addresses:"
// section that ParseAddresses reads); an alias reference that nothing
// binds is refused with ErrUnbound, naming the alias.
//
// This package does IO (files, eth_call); the documents it returns are
// evaluated by the pure rule package.
package rulesource
