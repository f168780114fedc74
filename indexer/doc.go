// Package indexer follows XRC-729 and XRC-137 registries on a chain into a
// hash-verified cache in Redis and turns configured trigger events into
// session starts, exactly once per confirmed log.
//
// The decisions — how far to read, how large a log range to ask for, whether
// a block extends what was indexed or a reorg happened and where its common
// ancestor is, what a log means for the cache — are pure and tested on
// their own; the follower only wires them to a node and to Redis, where
// its state (checkpoint, window, undo records, cache) is package
// indexstore's.
package indexer
