-- attempt: store a fee-bumped attempt of a signed, unmined key before it is
-- broadcast. The attempt replaces the key's current bytes; earlier attempts
-- stay in the attempts list (any of them may still be mined).
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>  KEYS[3] xgr:txm:{T}:a:<key>
-- ARGV[1] lease token  ARGV[2] attempts the caller saw  ARGV[3] nonce signed with
-- ARGV[4] tx hash  ARGV[5] raw tx (0x hex)  ARGV[6] tip cap  ARGV[7] fee cap
-- ARGV[8] gas price ("" for EIP-1559)  ARGV[9] chain head when signed
-- ARGV[10] now (ms; "" = the server clock)
--
-- Returns the new attempt count, or "stale" when the key is no longer
-- signed-and-unmined with ARGV[2] attempts (nothing changes). Error
-- "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: every attempt of a key carries the key's one nonce; only the
-- lease holder adds attempts, one at a time (compare-and-set on the count).
local n, now = clock(ARGV[10])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "attempts", "nonce")
if r[1] ~= "signed" or r[2] ~= ARGV[2] or r[3] ~= ARGV[3] then
  return "stale"
end
local count = int(tonumber(r[2]) + 1)
redis.call("HSET", KEYS[2], "hash", ARGV[4], "raw", ARGV[5], "attempts", count,
  "tip", ARGV[6], "feeCap", ARGV[7], "gasPrice", ARGV[8], "attemptBlock", ARGV[9])
redis.call("RPUSH", KEYS[3], cjson.encode({n = tonumber(count), hash = ARGV[4], raw = ARGV[5],
  tip = ARGV[6], feeCap = ARGV[7], gasPrice = ARGV[8], block = ARGV[9], at = now}))
return count
