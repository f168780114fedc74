// Package txmanager holds executions on chain: for one sender (a key) on
// one chain it assigns nonces, stores signed attempts before they are
// broadcast, re-broadcasts, bumps fees, follows receipts to finality and
// through reorgs, and fills nonce gaps. State is in Redis under one hash
// tag per chain and sender, changed only by the Lua transitions in lua/
// (one file per transition, each with a header of KEYS, ARGV, returns and
// the invariant it keeps).
//
// # Use
//
//	m, err := txmanager.New(ctx, txmanager.Config{Redis: rdb, Chain: client, Key: key,
//		Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 12}})
//	go m.Run(ctx)                          // the sender's upkeep, on every replica
//	rec, err := m.Submit(ctx, txmanager.Request{Key: "0xowner/7/7:3", To: target, Data: calldata})
//	rec, err = m.Wait(ctx, "0xowner/7/7:3") // final: rec.Outcome, rec.TxHash, rec.Block, rec.GasUsed
//
// # Guarantees
//
//   - One key, one nonce. Submit creates a key's record and assigns its
//     nonce in one transition (submit.lua); a key that exists is returned
//     as it is. Nonces are assigned gap-free, each with its record.
//   - Intent before broadcast. The signed bytes are stored (record.lua,
//     attempt.lua) before they are sent; only stored bytes are ever sent.
//     A replica that stops after the reservation leaves a "reserved" key
//     that the lease holder signs with the same nonce; one that stops
//     later leaves bytes that are sent again as they are.
//   - Never two live nonces for one key. Every attempt of a key (bumps)
//     carries its nonce; a reorg sends the mined bytes again. A key leaves
//     its nonce only when a final block shows a foreign transaction used
//     it (the sender's key signed elsewhere): then none of its attempts can
//     be mined on a chain that holds that block, and it is signed again
//     under a new nonce (resign.lua; its old attempts are never sent
//     again), so it executes once. A gap filler there ends "lost".
//   - Finality violations are repaired, not hidden. A transaction recorded
//     final that a reorg deeper than the configured finality took from the
//     chain is sent again with the same bytes under its nonce (reopen.lua;
//     a gap filler too), logged as ERROR "finality violated" and counted
//     (xgr_txm_finality_violations_total): the sender never stalls behind
//     an empty nonce. What the step did with the first outcome is not
//     undone, and a key whose record expired (RecordTTL) is filled. A
//     nonce a foreign transaction had used is filled, never given a key's
//     old bytes; one of those could then be mined only by someone else
//     re-sending it, past finality.
//   - One upkeep at a time. Run's tick works only while it holds the
//     sender's lease; every transition it commits is fenced by the lease
//     token, so a replica that lost the lease changes nothing.
//   - Exactly once across a restore. The chain is the ledger: when its
//     nonce for the sender is ahead of the manager's next nonce (Redis
//     restored from a backup, or the key used outside xgr), the blocks
//     after the last one the manager read (field scanned) are read
//     (reconcile.go, reconcile.lua; ReconcileBlocks per call) and the
//     sender's transactions no record holds are listed as unclaimed
//     before the next nonce passes them; no nonce is reserved meanwhile
//     (ErrReconciling). A key without a record whose exact call (to,
//     value, data) is an unclaimed transaction's adopts it in submit.lua:
//     its record is created included with that transaction, nothing is
//     signed. What no key adopts within UnclaimedTTL is logged as a use
//     of the key outside xgr.
//
// The tick reconciles with the node: the sender's next nonce follows the
// chain once the blocks holding its nonces are read (never lowered), and a
// nonce below next that no key holds any more (its record lost) is filled
// with a zero-value transfer to the sender (key "fill:<nonce>").
//
// No key jams the sender: a transaction the node refuses for good
// (PermanentReason: intrinsic gas, funds, size, gas limit, a fee cap no
// bump can lift, or accepted and dropped DropLimit times) while it holds
// none of the key's attempts ends "failed" with the node's reason
// (fail.lua); its nonce is filled in the same tick, so the keys behind it
// are mined, and it is never signed again.
//
// docs/executions.md describes the lifecycle, the keys and what to
// monitor for operators.
package txmanager
