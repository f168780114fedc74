-- lose: a gap filler's nonce was used, in a final block, by a transaction
-- that is none of its attempts (the sender's key signed elsewhere): the
-- gap is closed, and there is nothing to sign again. The filler ends as
-- final with outcome "lost". (An execution in the same place is signed
-- again under a new nonce: resign.lua.)
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>  KEYS[3] xgr:txm:{T}:a:<key>
-- KEYS[4] xgr:txm:{T}:pending  KEYS[5] xgr:txm:{T}:n:<nonce>
-- ARGV[1] lease token  ARGV[2] key  ARGV[3] nonce  ARGV[4] reason
-- ARGV[5] record TTL after final (s; 0 = keep)  ARGV[6] now (ms; "" = the server clock)
--
-- Returns "lost", or "stale" when the key is not signed under ARGV[3].
-- Error "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: as for every final key: no later change, no new nonce. The
-- nonce is marked used by a foreign transaction (n:<nonce>, finalNext), so
-- that a reorg past finality that empties it again is seen and filled.
local n, now = clock(ARGV[6])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "nonce")
if r[1] ~= "signed" or r[2] ~= ARGV[3] then
  return "stale"
end
redis.call("HSET", KEYS[2], "state", "final", "outcome", "lost", "error", ARGV[4], "finalAt", now)
redis.call("ZREM", KEYS[4], ARGV[2])
redis.call("SET", KEYS[5], "foreign:" .. ARGV[2])
if tonumber(ARGV[5]) > 0 then
  redis.call("EXPIRE", KEYS[2], ARGV[5])
  redis.call("EXPIRE", KEYS[3], ARGV[5])
  redis.call("EXPIRE", KEYS[5], ARGV[5])
end
local nonce = tonumber(ARGV[3])
if tonumber(redis.call("HGET", KEYS[1], "finalNext") or "0") < nonce + 1 then
  redis.call("HSET", KEYS[1], "finalNext", int(nonce + 1))
end
return "lost"
