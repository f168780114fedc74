// Package grant holds who may read what: grants per (RID, grantee, scope)
// with a rights bitmask (Read, Write, Manage), an expiry, the wrapped data
// key (EncDEK) of the grantee, an owner flag and the references (session,
// rule contract, transaction), as the XGR encryption and grants guide
// (XRC-563) describes them.
//
// The decisions are pure functions over values: MayRead, MayManage and
// Decide (which entries of a change an actor may write). Store keeps grants
// in Redis: one hash per grant whose TTL is its expiry, an index per RID
// (same hash tag as its grants) and an index per grantee (for listing),
// and applies a decided change in one Lua transition that refuses a stale
// decision.
//
// Keys (see docs/redis.md):
//
//	xgr:{gr:<rid>}:<scope>:<grantee>   hash: rights, expireAt, encDEK, isOwner, owner, grantedBy, sessionId, refAddr, txHash, updatedAt
//	xgr:{gr:<rid>}:<scope>:grantees    zset: grantee -> expireAt (unix ms)
//	xgr:{gg:<grantee>}:list            zset: "<scope>:<rid>" -> id (the listing order and cursor)
//	xgr:{gg:<grantee>}:seq             string: the grantee's last grant id
//
// RIDs are 0x and 64 lower-case hex digits, addresses lower case.
package grant
