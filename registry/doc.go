// Package registry holds the XRC-729 orchestration (OSTC) model: parsing
// documents exactly as authors write them, validating them against the
// XRC-729 caps of XDaLa_Limits.md with every problem reported by JSON path
// and line:column, the keccak256 content hash the XRC-729 contract stores,
// scope-aware reachability between steps, graph export, and the verified
// cache interface that later layers fill from chain.
//
// The package does no IO: callers hand it bytes and get values back.
package registry
