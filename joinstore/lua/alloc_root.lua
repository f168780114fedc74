-- alloc_root: allocate a root pid for an owner, idempotently.
--
-- KEYS[1] xgr:{own:O}:seq    last allocated rootPid (INCR)
-- KEYS[2] xgr:{own:O}:idem   hash: idempotency key -> rootPid
-- KEYS[3] xgr:{own:O}:roots  zset: rootPid by creation time
-- ARGV[1] idempotency key ("" = none)
-- ARGV[2] now (unix ms)
--
-- Returns {rootPid, "new"|"existing"}.
-- Invariant: one idempotency key maps to one rootPid forever (until the
-- owner's keys expire); rootPids of an owner are never reused.
local key = ARGV[1]
if key ~= "" then
  local have = redis.call("HGET", KEYS[2], key)
  if have then
    return {have, "existing"}
  end
end
local root = redis.call("INCR", KEYS[1])
if key ~= "" then
  redis.call("HSET", KEYS[2], key, root)
end
redis.call("ZADD", KEYS[3], ARGV[2], root)
return {tostring(root), "new"}
