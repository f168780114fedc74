-- promote: give queued keys their nonces (queued → reserved), oldest first,
-- while fewer than ARGV[2] of the sender's transactions are unmined.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:queue  KEYS[3] xgr:txm:{T}:pending
-- ARGV[1] lease token  ARGV[2] max in flight  ARGV[3] record key prefix
-- (xgr:txm:{T}:x:)  ARGV[4] now (ms; "" = the server clock)
--
-- The records are read by name under the sender's hash tag (same slot):
-- which keys are promoted is known only here.
-- Returns a flat list, per promoted key: key, nonce, to, data, value, gas,
-- createdAt.
-- Error "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: as submit: one nonce per key, assigned with the record, in
-- queue order, gap-free; only the lease holder promotes.
local n, now = clock(ARGV[4])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local free = tonumber(ARGV[2]) - redis.call("ZCARD", KEYS[3])
if free <= 0 then
  return {}
end
local keys = redis.call("ZRANGE", KEYS[2], 0, free - 1)
local next = tonumber(redis.call("HGET", KEYS[1], "next"))
local out = {}
for _, key in ipairs(keys) do
  local x = ARGV[3] .. key
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
