// Package indexstore keeps the indexer's state for one chain in Redis: the
// checkpoint, the window of recent blocks with the undo records that let a
// reorg be rewound, and the hash-verified cache of the on-chain XRC-729
// registries and XRC-137 rule contracts (orchestration texts, registry
// owners, discovered registries, rules), the trigger starts and the hash
// mismatches seen. A batch of blocks is committed, and a reorg rewound, by
// one atomic Lua script each (indexstore/lua/*.lua, embedded); what goes
// into the cache is decided by the indexer.
//
// # Keys
//
// Every key of a chain's index shares the hash tag {idx:<chainId>} (C
// below), so every transition touches one Redis Cluster slot. The indexer
// names its entries by keys relative to the index (OSTCKey, OwnerKey,
// StartKey, and its own "registry:<addr>" and "rule:<addr>").
//
//	xgr:{idx:C}:head               hash    number, hash: the last indexed block (the checkpoint)
//	xgr:{idx:C}:lease              string  "<replica> <token>", expiring: the indexing lease (one indexer at a time)
//	xgr:{idx:C}:leasefence         int     the last indexing lease token handed out
//	xgr:{idx:C}:blocks             hash    number → "hash parent" of the recent blocks (the window)
//	xgr:{idx:C}:undo:<n>           list    how to undo block n's changes: {"k": key, "prev": {field: value}}
//	xgr:{idx:C}:ostc:<reg>:<id>    hash    a cache entry: json, hash, version, block, valid, problems, …
//	xgr:{idx:C}:owner:<reg>        hash    a registry's owner: owner (lower-case 0x address), block, tx
//	xgr:{idx:C}:registry:<reg>     hash    a discovered registry: address, block, tx (of its deployment event)
//	xgr:{idx:C}:rule:<addr>        hash    a cached XRC-137 rule: address, block, hash, encrypted, text (or mismatch)
//	xgr:{idx:C}:start:<key>        hash    a trigger start: status (pending|started|failed), block, owner, payload, root,
//	                                       attempts, lastError, lastAttemptAt (ms) of starts that failed and are retried, …
//	xgr:{idx:C}:pending            zset    trigger starts not yet started, by block
//	xgr:{idx:C}:mismatch           list    hash mismatches seen (newest last, the last 1,000)
//	xgr:{idx:C}:ranges             hash    endpoint → the log range (blocks) it accepts
//	xgr:{idx:C}:finality           hash    mode, confirmations, replica, at (ms): the trigger finality rule
//	                                       the indexing replica took up indexing with (xgr index status)
//
// Addresses in keys (<reg>, <addr>) are in lower case.
package indexstore
