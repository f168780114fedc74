-- adopt_queued: queued keys whose call (to, value, data, exactly) is that
-- of an unclaimed chain transaction adopt it (queued → included, as
-- submit.lua adopts for a new key): a key that was queued when Redis was
-- backed up, and was sent after, is not given a new nonce by promote.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:queue
-- KEYS[3] xgr:txm:{T}:included  KEYS[4] xgr:txm:{T}:unclaimed
-- KEYS[5] xgr:txm:{T}:unclaimedTx  KEYS[6] xgr:txm:{T}:unclaimedBy
-- KEYS[5+2i] xgr:txm:{T}:x:<ARGV[2+i]>  KEYS[6+2i] xgr:txm:{T}:a:<ARGV[2+i]>
-- (i = 1, 2, …: the record and attempts of each key the caller read in the
-- queue)
-- ARGV[1] lease token  ARGV[2] now (ms; "" = the server clock)
-- ARGV[3..] those keys
--
-- Returns a flat list: per adopted key, the key and its nonce.
-- Error "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: as submit.lua: an unclaimed transaction is adopted by one key
-- at most; only a key still queued adopts (never one with a nonce).
local n, now = clock(ARGV[2])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local out = {}
for i = 3, #ARGV do
  local x, a = KEYS[5 + 2 * (i - 2)], KEYS[6 + 2 * (i - 2)]
  local f = redis.call("HMGET", x, "state", "to", "value", "data")
  if f[1] == "queued" then
    local e = takeUnclaimed(KEYS[4], KEYS[5], KEYS[6], f[2], f[3] or "0", f[4] or "0x")
    if e then
      redis.call("ZREM", KEYS[2], ARGV[i])
      adoptInto(x, a, KEYS[3], ARGV[i], e, now)
      table.insert(out, ARGV[i])
      table.insert(out, e.nonce)
    end
  end
end
return out
