-- reopen: a transaction recorded final is not on the chain any more (a
-- reorg deeper than the configured finality took its block), so the key
-- is live again (final → signed) with the bytes that were mined, to be
-- sent again under their own nonce. The operator's finality was violated:
-- the tick logs it as an ERROR and counts it.
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:x:<key>  KEYS[3] xgr:txm:{T}:a:<key>
-- KEYS[4] xgr:txm:{T}:pending
-- ARGV[1] lease token  ARGV[2] key  ARGV[3] nonce  ARGV[4] the mined tx hash
-- the caller read  ARGV[5] chain head now  ARGV[6] now (ms; "" = the server clock)
--
-- Returns "reopened", or "stale" when the key is not final under nonce
-- ARGV[3] with hash ARGV[4] and a mined outcome (success or reverted):
-- nothing changes. Error "LEASE_LOST" when ARGV[1] is not the sender's
-- current lease.
-- Invariant: the key keeps its nonce and its bytes (hash, raw, attempts,
-- all under that nonce): a reopened key is sent again as it was mined and
-- never signed under another nonce, so it executes at most once on any
-- one chain. Its record and attempts stop expiring while it is live
-- (settle sets the TTL again once it is final).
local n = clock(ARGV[6])
if not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local r = redis.call("HMGET", KEYS[2], "state", "nonce", "hash", "outcome")
if r[1] ~= "final" or r[2] ~= ARGV[3] or r[3] ~= ARGV[4] or (r[4] ~= "success" and r[4] ~= "reverted") then
  return "stale"
end
redis.call("HSET", KEYS[2], "state", "signed", "outcome", "", "block", "", "blockHash", "", "gasUsed", "",
  "status", "", "effectiveGasPrice", "", "includedAt", "", "finalAt", "", "attemptBlock", ARGV[5])
redis.call("HINCRBY", KEYS[2], "reorgs", 1)
redis.call("HINCRBY", KEYS[2], "violations", 1)
redis.call("PERSIST", KEYS[2])
redis.call("PERSIST", KEYS[3])
redis.call("ZADD", KEYS[4], ARGV[3], ARGV[2])
return "reopened"
