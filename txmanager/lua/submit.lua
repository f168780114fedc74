-- submit: accept an execution under its idempotency key. A key seen before
-- returns its record unchanged (never a second nonce). A new key gets the
-- sender's next nonce at once, in state "reserved", when fewer than
-- ARGV[6] of the sender's transactions are unmined and none waits in the
-- queue; else it waits in state "queued" without a nonce (promote assigns
-- one later, in order).
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>
-- KEYS[3] xgr:txm:{T}:queue   KEYS[4] xgr:txm:{T}:pending
-- ARGV[1] key  ARGV[2] to (0x address)  ARGV[3] data (0x hex)
-- ARGV[4] value (wei, decimal)  ARGV[5] gas limit (decimal)
-- ARGV[6] max in flight  ARGV[7] now (ms; "" = the server clock)
--
-- Returns {"reserved", nonce}, {"queued", ""}, or {"exists", field, value,
-- ...} (the record as HGETALL gives it). Error "UNSYNCED" when the sender's
-- next nonce was never read from the chain (sync_nonce first).
-- Invariant: a key is created once; a nonce is assigned to exactly one key,
-- in the same step that writes the key's record (no nonce without a
-- record, so no gap from a crash after the assignment); nonces are
-- assigned gap-free in increasing order.
if redis.call("EXISTS", KEYS[2]) == 1 then
  local r = redis.call("HGETALL", KEYS[2])
  table.insert(r, 1, "exists")
  return r
end
local next = redis.call("HGET", KEYS[1], "next")
if not next then
  return redis.error_reply("UNSYNCED the sender's next nonce is not known yet")
end
local _, now = clock(ARGV[7])
redis.call("HSET", KEYS[2], "key", ARGV[1], "kind", "exec", "to", ARGV[2], "data", ARGV[3],
  "value", ARGV[4], "gas", ARGV[5], "createdAt", now)
if redis.call("ZCARD", KEYS[3]) == 0 and redis.call("ZCARD", KEYS[4]) < tonumber(ARGV[6]) then
  redis.call("HSET", KEYS[1], "next", int(tonumber(next) + 1))
  redis.call("HSET", KEYS[2], "state", "reserved", "nonce", next, "reservedAt", now)
  redis.call("ZADD", KEYS[4], next, ARGV[1])
  return {"reserved", next}
end
local seq = redis.call("HINCRBY", KEYS[1], "queueSeq", 1)
redis.call("HSET", KEYS[2], "state", "queued")
redis.call("ZADD", KEYS[3], seq, ARGV[1])
return {"queued", ""}
