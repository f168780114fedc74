-- start_session: create a session and its root process <rootPid>:1, once.
--
-- KEYS[1] xgr:T:meta   session hash
-- KEYS[2] xgr:T:iter   last allocated iter
-- KEYS[3] xgr:T:due    zset of claimable processes by nextWakeAt
-- KEYS[4] xgr:T:p:1    the root process
-- ARGV[1] owner        ARGV[2] rootPid     ARGV[3] xrc729    ARGV[4] ostcId
-- ARGV[5] ostcHash     ARGV[6] startStep   ARGV[7] payload (JSON object)
-- ARGV[8] now (ms)     ARGV[9] wakeAt (ms) ARGV[10] paused (0|1)
-- ARGV[11] window (max concurrent executions; 0 = unlimited)
--
-- Returns {ack, pid}: ack is "already_queued" when the session exists,
-- else "paused", "scheduled" (wakeAt > now) or "queued".
-- Invariant: a session is created at most once; its root process is iter 1
-- and is claimable only through the due set.
if redis.call("EXISTS", KEYS[1]) == 1 then
  return {"already_queued", ARGV[2] .. ":1"}
end
local pid = ARGV[2] .. ":1"
redis.call("HSET", KEYS[1],
  "owner", ARGV[1], "rootPid", ARGV[2], "xrc729", ARGV[3], "ostcId", ARGV[4],
  "ostcHash", ARGV[5], "startStep", ARGV[6], "createdAt", ARGV[8],
  "window", ARGV[11], "live", 1, "status", "live")
redis.call("SET", KEYS[2], 1)
redis.call("HSET", KEYS[4],
  "pid", pid, "parentPid", "", "threadHeadPid", pid, "status", "waiting",
  "paused", ARGV[10], "resumeStep", ARGV[6], "lastStep", "", "lastEvalValid", "",
  "nextWakeAt", ARGV[9], "resumePlain", ARGV[7], "joinGroupId", "0",
  "killedAt", "", "createdAt", ARGV[8], "updatedAt", ARGV[8],
  "lease", "", "leaseUntil", "", "worker", "")
if ARGV[10] == "1" then
  return {"paused", pid}
end
redis.call("ZADD", KEYS[3], ARGV[9], 1)
if tonumber(ARGV[9]) > tonumber(ARGV[8]) then
  return {"scheduled", pid}
end
return {"queued", pid}
