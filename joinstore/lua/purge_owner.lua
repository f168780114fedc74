-- purge_owner: remove one purged session from its owner's indexes, and
-- forget the owner altogether (its root pid counter too) once no session
-- of it is left.
--
-- KEYS[1] xgr:{own:O}:seq  KEYS[2] xgr:{own:O}:idem  KEYS[3] xgr:{own:O}:roots
-- KEYS[4] xgr:{own:O}:expire  KEYS[5] xgr:{own:O}:idemof
-- KEYS[6] xgr:{own:O}:slots   KEYS[7] xgr:{own:O}:starts
-- ARGV[1] rootPid
--
-- Returns 1.
-- Invariant: an owner's indexes name only sessions that still have keys;
-- its idempotency keys never point at a purged session.
redis.call("ZREM", KEYS[3], ARGV[1])
redis.call("ZREM", KEYS[4], ARGV[1])
local key = redis.call("HGET", KEYS[5], ARGV[1])
if key then
  redis.call("HDEL", KEYS[2], key)
  redis.call("HDEL", KEYS[5], ARGV[1])
end
local held = redis.call("HGET", KEYS[6], ARGV[1])
if held then
  redis.call("HDEL", KEYS[6], ARGV[1])
  redis.call("HINCRBY", KEYS[6], "n", -tonumber(held))
end
if redis.call("ZCARD", KEYS[3]) == 0 then
  redis.call("DEL", KEYS[1], KEYS[2], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
end
return 1
