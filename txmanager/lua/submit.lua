-- submit: accept an execution under its idempotency key. A key seen before
-- returns its record unchanged (never a second nonce). A new key whose
-- call (to, value, data, exactly) is that of an unclaimed chain
-- transaction of the sender (lib/unclaimed.lua; the one of lowest nonce)
-- adopts it: its record is created included with that transaction, and
-- nothing is signed. Any other new key gets the sender's next nonce at
-- once, in state "reserved", when fewer than ARGV[6] of the sender's
-- transactions are unmined and none waits in the queue; else it waits in
-- state "queued" without a nonce (promote assigns one later, in order).
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>
-- KEYS[3] xgr:txm:{T}:queue   KEYS[4] xgr:txm:{T}:pending
-- KEYS[5] xgr:txm:{T}:included  KEYS[6] xgr:txm:{T}:a:<key>
-- KEYS[7] xgr:txm:{T}:unclaimed  KEYS[8] xgr:txm:{T}:unclaimedTx
-- KEYS[9] xgr:txm:{T}:unclaimedBy
-- ARGV[1] key  ARGV[2] to (0x address, lower case)  ARGV[3] data (0x hex)
-- ARGV[4] value (wei, decimal)  ARGV[5] gas limit (decimal)
-- ARGV[6] max in flight  ARGV[7] now (ms; "" = the server clock)
--
-- Returns {"reserved", nonce}, {"queued", ""}, {"exists", field, value,
-- ...} (the record as HGETALL gives it) or {"adopted", field, value, ...}
-- (the new record). Error "UNSYNCED" when the sender's next nonce was
-- never read from the chain (sync_nonce first); error "UNRECONCILED" when
-- the chain's nonce is ahead of the sender's next (field ahead, set by
-- sync_nonce) and the blocks that hold those nonces are not read yet
-- (reconcile.lua): a nonce reserved now might send again a call the
-- chain already holds. Nothing is written with either error.
-- Invariant: a key is created once; a nonce is assigned to exactly one key,
-- in the same step that writes the key's record (no nonce without a
-- record, so no gap from a crash after the assignment); nonces are
-- assigned gap-free in increasing order, and only when every nonce the
-- chain has used is held by a record or listed unclaimed; an unclaimed
-- transaction is adopted by one key at most.
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
local e = takeUnclaimed(KEYS[7], KEYS[8], KEYS[9], ARGV[2], ARGV[4], ARGV[3])
if e then
  redis.call("HSET", KEYS[2], "key", ARGV[1], "kind", "exec", "to", ARGV[2], "data", ARGV[3],
    "value", ARGV[4], "createdAt", now)
  adoptInto(KEYS[2], KEYS[6], KEYS[5], ARGV[1], e, now)
  local r = redis.call("HGETALL", KEYS[2])
  table.insert(r, 1, "adopted")
  return r
end
local ahead = redis.call("HGET", KEYS[1], "ahead")
if ahead and tonumber(ahead) > tonumber(next) then
  return redis.error_reply("UNRECONCILED the chain's nonce " .. ahead .. " is ahead of the sender's next nonce " .. next ..
    "; the blocks holding those nonces are not read yet")
end
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
