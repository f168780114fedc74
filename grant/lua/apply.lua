-- apply: write a decided change of one RID's grants in one scope (package
-- grant, Store.Apply and Store.Put).
--
-- KEYS[1] the actor's grant xgr:{gr:R}:S:<actor> (any grant key when unchecked)
-- KEYS[2] the RID's index xgr:{gr:R}:S:grantees (zset grantee -> expireAt ms)
-- KEYS[3..] one grant key xgr:{gr:R}:S:<grantee> per write
-- ARGV[1] the actor grant's expected fingerprint "rights|expireAtMs|isOwner"
--         or "none" ("" = unchecked: the engine's own writes)
-- ARGV[2] "1" when the plan is a bootstrap: the RID must have no live grant
-- ARGV[3] now (unix ms)
-- ARGV[4..] per write: op ("set" or "del"), grantee, expireAt (ms),
--           nfields, then nfields field/value pairs
--
-- Returns "OK", or "STALE" (nothing written) when the actor's grant or the
-- RID's live grants are no longer what the plan was decided on.
-- Invariant: a grant key lives exactly until its expiry; the RID's index
-- holds each live grantee once, scored by its expiry, and lives as long as
-- its last grant; a change is applied whole or not at all.
if ARGV[1] ~= "" then
  local a = redis.call("HMGET", KEYS[1], "rights", "expireAt", "isOwner")
  local print = "none"
  if a[1] then
    print = a[1] .. "|" .. a[2] .. "|" .. a[3]
  end
  if print ~= ARGV[1] then
    return "STALE"
  end
end
local now = ARGV[3]
if ARGV[2] == "1" and redis.call("ZCOUNT", KEYS[2], "(" .. now, "+inf") > 0 then
  return "STALE"
end
redis.call("ZREMRANGEBYSCORE", KEYS[2], "-inf", now)
local i, k = 4, 3
while i <= #ARGV do
  local op, grantee, exp, n = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local key = KEYS[k]
  redis.call("DEL", key)
  if op == "set" then
    local args = {}
    for j = 1, 2 * n do
      args[j] = ARGV[i + 3 + j]
    end
    redis.call("HSET", key, unpack(args))
    redis.call("PEXPIREAT", key, exp)
    redis.call("ZADD", KEYS[2], exp, grantee)
    if redis.call("PTTL", KEYS[2]) == -1 then
      redis.call("PEXPIREAT", KEYS[2], exp)
    else
      redis.call("PEXPIREAT", KEYS[2], exp, "GT")
    end
  else
    redis.call("ZREM", KEYS[2], grantee)
  end
  i = i + 4 + 2 * n
  k = k + 1
end
return "OK"
