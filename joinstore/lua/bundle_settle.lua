-- bundle_settle: the second half (see bundle_stage.lua), run in the same
-- MULTI/EXEC right after commit_step. A record staged by this token stays
-- when the commit applied (the process is done or aborted now: nothing
-- ran between the two halves but the commit), with the process's status
-- and abort reason; otherwise (the commit failed: lease lost or expired,
-- a script error) it is deleted. Sent with EVAL (no NOSCRIPT).
--
-- KEYS[1] the record  KEYS[2] xgr:T:p:<iter>  KEYS[3] xgr:T:meta
-- ARGV[1] the lease token
--
-- Returns {stored, steps}: stored 1 when the record was staged by this
-- token and kept; steps the session's count of committed steps (meta).
-- Invariant: no record of a process outlives this script with "pending"
-- set; a kept record names a commit that applied.
local steps = tonumber(redis.call("HGET", KEYS[3], "steps") or "0") or 0
if redis.call("HGET", KEYS[1], "pending") ~= ARGV[1] then
  return {0, steps}
end
local p = redis.call("HMGET", KEYS[2], "status", "abortReason")
if p[1] ~= "done" and p[1] ~= "aborted" then
  redis.call("DEL", KEYS[1])
  return {0, steps}
end
redis.call("HDEL", KEYS[1], "pending")
if p[1] == "aborted" then
  redis.call("HSET", KEYS[1], "status", p[1], "abortReason", p[2] or "")
else
  redis.call("HSET", KEYS[1], "status", p[1])
end
return {1, steps}
