-- resume_exec: take over an executing process whose holder stopped (its
-- lease expired): a fresh fencing token, a lease for the new holder, and
-- the process's execution record and key, to poll the execution's outcome
-- and finish the step from the record. The step is never run again.
--
-- KEYS[1] xgr:T:p:<iter>  KEYS[2] xgr:T:run  KEYS[3] xgr:T:meta (field fence)
-- ARGV[1] iter  ARGV[2] the expired lease's token  ARGV[3] now (ms; "" =
-- the server clock)  ARGV[4] lease duration (ms)  ARGV[5] worker
--
-- Returns {token, leaseUntil, firstReserved, resumeStep, resumePlain,
-- parentPid, joinGroupId, threadHeadPid, execKey, execRecord} (the
-- reservation of child iters is the one the first claim made), or
-- {"stale"} when the process is not executing under ARGV[2] or its lease
-- has not expired (its holder renewed or committed it).
-- Invariant: an executing process is held by at most one lease; its
-- reservation, key and record never change here.
local p = redis.call("HMGET", KEYS[1], "status", "lease", "leaseUntil", "reserved", "resumeStep", "resumePlain",
  "parentPid", "joinGroupId", "threadHeadPid", "execKey", "execRecord")
local now, nowS = clock(ARGV[3])
if p[1] ~= "executing" or p[2] ~= ARGV[2] or tonumber(p[3]) >= now then
  return {"stale"}
end
local fence = tonumber(redis.call("HGET", KEYS[3], "fence") or "0") + 1
local token = int(fence)
local untilMs = int(now + tonumber(ARGV[4]))
redis.call("HSET", KEYS[3], "fence", token)
redis.call("HSET", KEYS[1], "lease", token, "leaseUntil", untilMs, "worker", ARGV[5], "updatedAt", nowS)
redis.call("ZADD", KEYS[2], untilMs, ARGV[1])
local first = "0"
if p[4] and p[4] ~= "" then
  first = string.match(p[4], "^(%d+):") or "0"
end
return {token, untilMs, first, p[5] or "", p[6] or "{}", p[7] or "", p[8] or "", p[9] or "", p[10] or "", p[11] or ""}
