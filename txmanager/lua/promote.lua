-- promote: give queued keys their nonces (queued → reserved), oldest first,
-- while fewer than ARGV[2] of the sender's transactions are unmined.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:queue  KEYS[3] xgr:txm:{T}:pending
-- KEYS[3+i] xgr:txm:{T}:x:<ARGV[3+i]>, the record of each key the caller
--         read at the queue's head (at most ARGV[2] of them, in queue order)
-- ARGV[1] lease token  ARGV[2] max in flight  ARGV[3] now (ms; "" = the
-- server clock)  ARGV[4..] those keys
--
-- The records are taken from KEYS: a key the queue holds whose record the
-- caller did not declare (queued after it read the head) ends the
-- promotion, before any write for it; it and the keys after it stay queued
-- for the next promotion.
-- Returns a flat list, per promoted key: key, nonce, to, data, value, gas,
-- createdAt. A declared key that is already reserved but not yet signed is
-- listed too, first, with its nonce: when the reply of a promotion is lost
-- and the client sends the same call again, the second answer names the
-- keys the first one reserved, so the caller signs them now instead of
-- leaving their nonces unsigned until ReserveTimeout (which would hold
-- every later nonce of the sender).
-- Error "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: as submit: one nonce per key, assigned with the record, in
-- queue order, gap-free; only the lease holder promotes; the script reaches
-- declared keys only.
local n, now = clock(ARGV[3])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local out = {}
for i = 4, #ARGV do
  local f = redis.call("HMGET", KEYS[i], "state", "nonce", "to", "data", "value", "gas", "createdAt")
  if f[1] == "reserved" then
    for _, v in ipairs({ARGV[i], f[2], f[3], f[4], f[5], f[6], f[7]}) do
      table.insert(out, v)
    end
  end
end
local free = tonumber(ARGV[2]) - redis.call("ZCARD", KEYS[3])
if free <= 0 then
  return out
end
-- The declared records, by key.
local records = {}
for i = 4, #ARGV do
  records[ARGV[i]] = KEYS[i]
end
local keys = redis.call("ZRANGE", KEYS[2], 0, free - 1)
local next = tonumber(redis.call("HGET", KEYS[1], "next"))
for _, key in ipairs(keys) do
  local x = records[key]
  if not x then
    break
  end
  redis.call("ZREM", KEYS[2], key)
  local f = redis.call("HMGET", x, "state", "to", "data", "value", "gas", "createdAt")
  if f[1] == "queued" then
    local nonce = int(next)
    next = next + 1
    redis.call("HSET", x, "state", "reserved", "nonce", nonce, "reservedAt", now)
    redis.call("ZADD", KEYS[3], nonce, key)
    for _, v in ipairs({key, nonce, f[2], f[3], f[4], f[5], f[6]}) do
      table.insert(out, v)
    end
  end
end
redis.call("HSET", KEYS[1], "next", int(next))
return out
