-- drop_unclaimed: forget unclaimed chain transactions (lib/unclaimed.lua)
-- listed before ARGV[2] that no execution adopted: transactions of the
-- sender's key that xgr did not send (used outside xgr), or sent for an
-- execution that did not come back after a restore.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:unclaimed
-- KEYS[3] xgr:txm:{T}:unclaimedTx  KEYS[4] xgr:txm:{T}:unclaimedBy
-- ARGV[1] lease token  ARGV[2] listed before (ms)  ARGV[3] at most this many
-- ARGV[4] now (ms; "" = the server clock)
--
-- Returns the dropped entries (JSON, as unclaimedTx held them).
-- Error "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: an entry leaves the three keys together; a dropped
-- transaction is adopted by no key.
local n = clock(ARGV[4])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local out = {}
for _, nonce in ipairs(redis.call("ZRANGEBYSCORE", KEYS[2], "-inf", "(" .. ARGV[2], "LIMIT", 0, tonumber(ARGV[3]))) do
  local e = dropUnclaimed(KEYS[2], KEYS[3], KEYS[4], nonce)
  if e then
    table.insert(out, cjson.encode(e))
  else
    redis.call("ZREM", KEYS[2], nonce)
  end
end
return out
