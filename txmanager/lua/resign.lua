-- resign: the key's nonce was used, in a final block, by a transaction
-- that is none of the key's attempts (the sender's key signed elsewhere).
-- None of its attempts can be mined on a chain that holds that block, so
-- the key gets the sender's next nonce (signed → reserved) and is signed
-- again under it; its old attempts move to the void list and are never
-- sent again.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>  KEYS[3] xgr:txm:{T}:a:<key>
-- KEYS[4] xgr:txm:{T}:o:<key> (void attempts)  KEYS[5] xgr:txm:{T}:pending
-- KEYS[6] xgr:txm:{T}:n:<old nonce>
-- ARGV[1] lease token  ARGV[2] key  ARGV[3] old nonce  ARGV[4] attempts the
-- caller checked  ARGV[5] the final block by which the old nonce was used
-- ARGV[6] record TTL after final (s; 0 = keep; the void list and the
-- old nonce's name expire after it from now)  ARGV[7] now (ms; "" = the server clock)
--
-- Returns {"resigned", new nonce}, or {"stale"} when the key is not an
-- execution ("exec") signed under ARGV[3] with ARGV[4] attempts (a
-- receipt or a bump came in between; nothing changes). Error "LEASE_LOST"
-- when ARGV[1] is not the sender's current lease.
-- Invariant: a key holds one nonce at a time, and only bytes signed with
-- it are ever sent; a key leaves a nonce only for good, when a final
-- block shows another transaction used it (so the key executes at most
-- once on every chain that keeps that block). The old nonce is marked
-- used by a foreign transaction (n:<nonce>, finalNext), so that a reorg
-- past finality that empties it again is seen and the nonce is filled,
-- never given the old bytes back. The new nonce is assigned as
-- submit.lua assigns one: the sender's next, with the record.
local n, now = clock(ARGV[7])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "nonce", "attempts", "kind")
if r[1] ~= "signed" or r[2] ~= ARGV[3] or r[3] ~= ARGV[4] or r[4] ~= "exec" then
  return {"stale"}
end
local next = redis.call("HGET", KEYS[1], "next")
local old = tonumber(ARGV[3])
for _, a in ipairs(redis.call("LRANGE", KEYS[3], 0, -1)) do
  redis.call("RPUSH", KEYS[4], a)
end
redis.call("DEL", KEYS[3])
redis.call("HSET", KEYS[1], "next", int(tonumber(next) + 1))
if tonumber(redis.call("HGET", KEYS[1], "finalNext") or "0") < old + 1 then
  redis.call("HSET", KEYS[1], "finalNext", int(old + 1))
end
redis.call("SET", KEYS[6], "foreign:" .. ARGV[2])
if tonumber(ARGV[6]) > 0 then
  redis.call("EXPIRE", KEYS[4], ARGV[6])
  redis.call("EXPIRE", KEYS[6], ARGV[6])
end
redis.call("HSET", KEYS[2], "state", "reserved", "nonce", next, "reservedAt", now, "hash", "", "raw", "",
  "attempts", "0", "tip", "", "feeCap", "", "gasPrice", "", "attemptBlock", "", "signedAt", "",
  "voidNonces", (redis.call("HGET", KEYS[2], "voidNonces") or "") .. ARGV[3] .. "@" .. ARGV[5] .. " ")
redis.call("HINCRBY", KEYS[2], "resigned", 1)
redis.call("ZADD", KEYS[5], next, ARGV[2])
return {"resigned", next}
