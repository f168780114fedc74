-- start_session: create a session and its root process <rootPid>:1, once.
--
-- KEYS[1] xgr:T:meta   session hash
-- KEYS[2] xgr:T:due    zset of claimable processes by nextWakeAt
-- KEYS[3] xgr:T:p:1    the root process
-- KEYS[4] xgr:T:gone   tombstone: a replica found the session's index entry
--                      before the session existed and gave it up (forget_root)
-- ARGV[1] owner        ARGV[2] rootPid     ARGV[3] xrc729    ARGV[4] ostcId
-- ARGV[5] ostcHash     ARGV[6] startStep   ARGV[7] payload (JSON object)
-- ARGV[8] now (ms; "" = the server clock)  ARGV[9] wake after (ms from now)
-- ARGV[10] paused (0|1)
-- ARGV[11] window (max concurrent executions; 0 = unlimited)
-- ARGV[12] reserve, ARGV[13] bypass: the start step's limits (claim.lua's
--          step table entry), kept on the root process so that adopt_root
--          can claim it before the orchestration is loaded ("" = not known)
-- ARGV[14] the start payload's __wakeUp value (raw JSON; "" = none), kept
--          in meta as wakeUp so that who may wake is decided without
--          reading process payloads
-- ARGV[15] start key: the start's idempotency key ("" = none), kept in meta
--          as startKey so that an acknowledgement names its start
-- ARGV[16] fresh: "1" when alloc_root allocated the root pid in this start
--          (no earlier attempt of this start can have created the session)
-- ARGV[17] the session's gas budget for executions (the SessionPermit's
--          maxTotalGas, decimal; "" or "0" = the operator's default), kept
--          in meta as maxTotalGas
-- ARGV[18] the process slots its owner granted the session (alloc_root;
--          "" = no live process quota), kept in meta as allow: commit_step
--          asks for more before it goes over them
--
-- Returns {ack, pid}: ack is "already_queued" when this start created the
-- session before (then with its status, live or finished, third), "taken"
-- when the session exists but another start created it (the owner's counter
-- lost writes; then with that start's key third), "gone" when a replica
-- gave the root pid up (KEYS[4]), else "paused", "scheduled" (wakeAt > now)
-- or "queued".
-- Invariant: a session is created at most once, by one start; its root
-- process is iter 1 and is claimable only through the due set; a root pid
-- given up by a replica never gets a session.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
if redis.call("EXISTS", KEYS[1]) == 1 then
  local m = redis.call("HMGET", KEYS[1], "status", "startKey")
  local have = m[2] or ""
  if (ARGV[15] ~= "" and have == ARGV[15]) or (have == "" and ARGV[16] ~= "1") then
    return {"already_queued", ARGV[2] .. ":1", m[1] or ""}
  end
  return {"taken", ARGV[2] .. ":1", have}
end
if redis.call("EXISTS", KEYS[4]) == 1 then
  return {"gone", ARGV[2] .. ":1"}
end
local pid = ARGV[2] .. ":1"
local now = clock(ARGV[8])
local wake = now + tonumber(ARGV[9])
-- The fields every commit reads and writes first (a small hash is a
-- listpack, searched from its start).
redis.call("HSET", KEYS[1],
  "steps", 0, "live", 1, "fence", 0, "iter", 1, "window", ARGV[11], "status", "live",
  "owner", ARGV[1], "rootPid", ARGV[2], "xrc729", ARGV[3], "ostcId", ARGV[4],
  "ostcHash", ARGV[5], "startStep", ARGV[6], "createdAt", now,
  "wakeUp", ARGV[14] or "", "startKey", ARGV[15] or "", "maxTotalGas", ARGV[17] or "")
redis.call("HSET", KEYS[3],
  "pid", pid, "parentPid", "", "threadHeadPid", pid, "status", "waiting",
  "paused", ARGV[10], "resumeStep", ARGV[6], "lastStep", "", "lastEvalValid", "",
  "nextWakeAt", wake, "resumePlain", ARGV[7], "joinGroupId", "0",
  "killedAt", "", "createdAt", now, "updatedAt", now,
  "lease", "", "leaseUntil", "", "worker", "")
if ARGV[18] and ARGV[18] ~= "" then
  redis.call("HSET", KEYS[1], "allow", ARGV[18])
end
if ARGV[12] and ARGV[12] ~= "" then
  redis.call("HSET", KEYS[3], "reserve", ARGV[12], "bypass", ARGV[13])
end
if ARGV[10] == "1" then
  return {"paused", pid}
end
redis.call("ZADD", KEYS[2], wake, 1)
if wake > now then
  return {"scheduled", pid}
end
return {"queued", pid}
