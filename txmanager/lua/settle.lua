-- settle: record a receipt of one of the key's attempts (signed or included
-- → included), or its finality (→ final, outcome success or reverted).
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>  KEYS[3] xgr:txm:{T}:a:<key>
-- KEYS[4] xgr:txm:{T}:pending  KEYS[5] xgr:txm:{T}:included
-- KEYS[6] xgr:txm:{T}:n:<nonce> (the key that holds the nonce final)
-- ARGV[1] lease token  ARGV[2] key  ARGV[3] nonce  ARGV[4] mined tx hash
-- ARGV[5] its raw tx (0x hex)  ARGV[6] block number  ARGV[7] block hash
-- ARGV[8] gas used  ARGV[9] receipt status (1 success, 0 reverted)
-- ARGV[10] effective gas price  ARGV[11] "1" when the block is final
-- ARGV[12] record TTL after final (s; 0 = keep)  ARGV[13] now (ms; "" = the server clock)
--
-- Returns the new state ("included" or "final"), or "stale" when the key
-- is not signed or included under nonce ARGV[3] (nothing changes). Error
-- "LEASE_LOST" when ARGV[1] is not the sender's current lease.
-- Invariant: a final key never changes again (but for reopen.lua, when a
-- reorg past finality took its transaction); the mined attempt becomes
-- the key's bytes (a reorg re-broadcasts exactly the transaction that was
-- mined); a final key leaves the sender's live sets and expires. A final
-- key is named by n:<nonce> (expiring with it) and the sender's finalNext
-- is raised above its nonce: a later chain whose mined nonce is below
-- finalNext lost a final transaction (a reorg past finality), and the tick
-- finds its key there to send its bytes again (reopen.lua).
local n, now = clock(ARGV[13])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "nonce", "includedAt")
if (r[1] ~= "signed" and r[1] ~= "included") or r[2] ~= ARGV[3] then
  return "stale"
end
redis.call("HSET", KEYS[2], "hash", ARGV[4], "raw", ARGV[5], "block", ARGV[6], "blockHash", ARGV[7],
  "gasUsed", ARGV[8], "status", ARGV[9], "effectiveGasPrice", ARGV[10])
if not r[3] or r[3] == "" then
  redis.call("HSET", KEYS[2], "includedAt", now)
end
redis.call("ZREM", KEYS[4], ARGV[2])
if ARGV[11] == "1" then
  local outcome = "reverted"
  if ARGV[9] == "1" then
    outcome = "success"
  end
  redis.call("HSET", KEYS[2], "state", "final", "outcome", outcome, "finalAt", now)
  redis.call("ZREM", KEYS[5], ARGV[2])
  redis.call("SET", KEYS[6], ARGV[2])
  if tonumber(ARGV[12]) > 0 then
    redis.call("EXPIRE", KEYS[2], ARGV[12])
    redis.call("EXPIRE", KEYS[3], ARGV[12])
    redis.call("EXPIRE", KEYS[6], ARGV[12])
  end
  local nonce = tonumber(ARGV[3])
  if tonumber(redis.call("HGET", KEYS[1], "finalNext") or "0") < nonce + 1 then
    redis.call("HSET", KEYS[1], "finalNext", int(nonce + 1))
  end
  return "final"
end
redis.call("HSET", KEYS[2], "state", "included")
redis.call("ZADD", KEYS[5], ARGV[3], ARGV[2])
return "included"
