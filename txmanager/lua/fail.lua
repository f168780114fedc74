-- fail: the node refused the key's transaction for good (intrinsic gas too
-- low, insufficient funds, oversized, gas limit above the block's, fee cap
-- below the base fee with no room for a bump, or accepted and dropped again
-- and again), and none of the key's attempts is in the node's pool or
-- mined. The key ends final with outcome "failed" and the node's reason; it
-- leaves the pending set, so its nonce is a gap the tick fills with a
-- zero-value self-transfer (fill.lua) and the sender's later nonces can be
-- mined. The key is never signed again, under any nonce.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>  KEYS[3] xgr:txm:{T}:a:<key>
-- KEYS[4] xgr:txm:{T}:pending
-- ARGV[1] lease token  ARGV[2] key  ARGV[3] nonce  ARGV[4] attempts the caller saw
-- ARGV[5] the node's reason  ARGV[6] record TTL after final (s; 0 = keep)
-- ARGV[7] now (ms; "" = the server clock)
--
-- Returns "failed", or "stale" when the key is not an execution ("exec")
-- signed under nonce ARGV[3] with ARGV[4] attempts (a bump or a receipt came
-- in between; nothing changes). Error "LEASE_LOST" when ARGV[1] is not the
-- sender's current lease.
-- Invariant: as for every final key: no later change, no new nonce; only
-- the lease holder fails a key, and only the attempts it checked (compare-
-- and-set on the count); a gap filler is never failed (its nonce would be
-- a gap again).
local n, now = clock(ARGV[7])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "nonce", "attempts", "kind")
if r[1] ~= "signed" or r[2] ~= ARGV[3] or r[3] ~= ARGV[4] or r[4] ~= "exec" then
  return "stale"
end
redis.call("HSET", KEYS[2], "state", "final", "outcome", "failed", "error", ARGV[5], "finalAt", now)
redis.call("ZREM", KEYS[4], ARGV[2])
if tonumber(ARGV[6]) > 0 then
  redis.call("EXPIRE", KEYS[2], ARGV[6])
  redis.call("EXPIRE", KEYS[3], ARGV[6])
end
return "failed"
