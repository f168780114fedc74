-- unmine: a reorg dropped the key's receipt (included → signed). The key
-- keeps the bytes that were mined; the tick re-broadcasts them.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>
-- KEYS[3] xgr:txm:{T}:pending  KEYS[4] xgr:txm:{T}:included
-- ARGV[1] lease token  ARGV[2] key  ARGV[3] the block hash that was dropped
-- ARGV[4] chain head now  ARGV[5] now (ms; "" = the server clock)
--
-- Returns "unmined", or "stale" when the key is not included in block
-- ARGV[3] (nothing changes). Error "LEASE_LOST" when ARGV[1] is not the
-- sender's current lease.
-- Invariant: the same transaction (hash, nonce, bytes) is sent again; a
-- reorg never leads to a new signature under a new nonce.
local n = clock(ARGV[5])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "blockHash", "nonce")
if r[1] ~= "included" or r[2] ~= ARGV[3] then
  return "stale"
end
redis.call("HSET", KEYS[2], "state", "signed", "block", "", "blockHash", "", "gasUsed", "", "status", "",
  "effectiveGasPrice", "", "includedAt", "", "attemptBlock", ARGV[4])
redis.call("HINCRBY", KEYS[2], "reorgs", 1)
redis.call("ZREM", KEYS[4], ARGV[2])
redis.call("ZADD", KEYS[3], r[3], ARGV[2])
return "unmined"
