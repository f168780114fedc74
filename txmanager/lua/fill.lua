-- fill: reserve a nonce that no key holds (a gap below the sender's next
-- nonce that re-broadcasting cannot close: its record is gone) for a
-- zero-value transfer to the sender itself, key "fill:<nonce>".
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:fill:<nonce>
-- KEYS[3] xgr:txm:{T}:pending  KEYS[4] xgr:txm:{T}:included
-- ARGV[1] lease token  ARGV[2] nonce  ARGV[3] the sender (0x address)
-- ARGV[4] gas limit  ARGV[5] now (ms; "" = the server clock)
--
-- Returns "reserved"; "final" when the fill exists and is final: the
-- caller found its nonce a gap, so the fill's transaction vanished in a
-- reorg past finality and must be sent again (reopen.lua), not forgotten;
-- or "taken" when the nonce is not below next, a live key holds it, or
-- the fill exists and is live (nothing changes). Error "LEASE_LOST" when
-- ARGV[1] is not the sender's current lease.
-- Invariant: a nonce is held by at most one live key; a fill never takes a
-- nonce a key holds; a fill:<nonce> that exists is never reserved again
-- (its stored bytes are the nonce's filler).
local n, now = clock(ARGV[5])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local next = tonumber(redis.call("HGET", KEYS[1], "next") or "0")
local nonce = tonumber(ARGV[2])
if nonce >= next or #redis.call("ZRANGEBYSCORE", KEYS[3], nonce, nonce) > 0
  or #redis.call("ZRANGEBYSCORE", KEYS[4], nonce, nonce) > 0 then
  return "taken"
end
local state = redis.call("HGET", KEYS[2], "state")
if state == "final" then
  return "final"
elseif redis.call("EXISTS", KEYS[2]) == 1 then
  return "taken"
end
local key = "fill:" .. ARGV[2]
redis.call("HSET", KEYS[2], "key", key, "kind", "fill", "to", ARGV[3], "data", "0x", "value", "0",
  "gas", ARGV[4], "createdAt", now, "state", "reserved", "nonce", ARGV[2], "reservedAt", now)
redis.call("ZADD", KEYS[3], ARGV[2], key)
return "reserved"
