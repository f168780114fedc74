-- release_lease: give up a running process's lease without a result (the
-- execution failed transiently). The process returns to the due set
-- ARGV[4] ms later, to be claimed again, unless it was killed while it ran (its own
-- killedAt or the session's): then it is aborted, leaves its group and fails
-- at its group's open join target; or unless its group's join closed with
-- kill meanwhile: then it is aborted (the dispatch gate) and leaves its group.
--
-- KEYS[1] xgr:T:p:<iter>  KEYS[2] xgr:T:run  KEYS[3] xgr:T:due
-- KEYS[4] xgr:T:meta      KEYS[5] xgr:T:g:<group of the process>
-- KEYS[6] xgr:T:p:<target of that group> (KEYS[1] again when none)
-- KEYS[7] xgr:T:jq:<target of that group>  KEYS[8] xgr:T:jpend
-- KEYS[9 ..] the session's records (lib/expire_records.lua): meta, run,
--           due, steps, wq, targets, jpend, woken; they expire when the
--           release ends the session
-- ARGV[1] iter  ARGV[2] token  ARGV[3] now (ms; "" = the server clock)
-- ARGV[4] retry after (ms from now)
-- ARGV[5] target iter ("" = none)  ARGV[6] record TTL (s)
-- ARGV[7] "" for a holder's release; "recover" for recovery: the lease must
--         have expired by now (a renewed lease is left alone)
-- ARGV[8] recoveries after which a process is abandoned (0 = never): each
--         recovery counts on the process (field recoveries); the one that
--         reaches the cap aborts it instead of running it again, so that a
--         step whose every run stops its replica (a crash, an out-of-memory
--         kill) cannot stop replica after replica
--
-- Returns "executing" (the process executes: left as it is, for
-- resume_exec), "released", "killed" (killed while it ran: aborted now), "gated"
-- (aborted by the dispatch gate), "abandoned" (recovered once too often:
-- aborted now, failed at its group's open join target), or "stale"
-- when the token is no longer the current lease (a second release is a
-- reported no-op, never a second effect).
-- An abandoned process adds 1 to the meta's failed tally (the session's
-- outcome, docs/runtime.md "Session outcomes").
-- Invariant: an executing process keeps its status and execution record;
-- a lease is released at most once; a stale holder changes
-- nothing; a process is recovered at most ARGV[8] - 1 times; nothing runs in a group whose join closed with kill; a killed
-- process never runs again, and a release does not leave it waiting forever.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
local p = redis.call("HMGET", KEYS[1], "status", "lease", "resumeStep", "pid", "leaseUntil")
if p[1] == "executing" and p[2] == ARGV[2] then
  -- Its execution was sent: it is never run again, killed or abandoned
  -- here; its new holder takes it over (resume_exec) and polls the outcome.
  return "executing"
end
if p[1] ~= "running" or p[2] ~= ARGV[2] then
  return "stale"
end
local now = clock(ARGV[3])
if ARGV[7] ~= "" and tonumber(p[5]) >= now then
  return "stale"
end
redis.call("ZREM", KEYS[2], ARGV[1])
local function finish(reason)
  redis.call("HSET", KEYS[1], "status", "aborted", "lease", "", "leaseUntil", "", "worker", "",
    "reserved", "", "abortReason", reason, "updatedAt", now)
  redis.call("HDEL", KEYS[5], ARGV[1])
  local live = redis.call("HINCRBY", KEYS[4], "live", -1)
  if tonumber(ARGV[6]) > 0 then
    redis.call("EXPIRE", KEYS[1], ARGV[6])
  end
  if live <= 0 then
    redis.call("HSET", KEYS[4], "status", "finished", "finishedAt", now)
    expireRecords(9, #KEYS, ARGV[6])
  end
end
-- failAtTarget delivers the process's failure to its group's open join
-- target (none when it closed).
local function failAtTarget()
  if ARGV[5] ~= "" and redis.call("HGET", KEYS[6], "closed") ~= "1" then
    redis.call("RPUSH", KEYS[7], cjson.encode({pid = p[4], from = p[3], aborted = true, valid = cjson.null, payload = "{}"}))
    redis.call("ZADD", KEYS[8], "NX", now, ARGV[5])
  end
end
local killedAt = redis.call("HGET", KEYS[1], "killedAt")
local sessionKilled = redis.call("HGET", KEYS[4], "killedAt")
if (killedAt and killedAt ~= "") or (sessionKilled and sessionKilled ~= "") then
  if not killedAt or killedAt == "" then
    redis.call("HSET", KEYS[1], "killedAt", now)
  end
  finish("killed")
  failAtTarget()
  return "killed"
end
if ARGV[5] ~= "" then
  local t = redis.call("HMGET", KEYS[6], "closed", "policy")
  if t[1] == "1" and t[2] == "kill" then
    finish("gated")
    return "gated"
  end
end
if ARGV[7] ~= "" then
  local n = redis.call("HINCRBY", KEYS[1], "recoveries", 1)
  local cap = tonumber(ARGV[8])
  if cap > 0 and n >= cap then
    finish("abandoned: the lease of step " .. p[3] .. " expired " .. n ..
      " times while it ran (each time its replica stopped: a crash or an out-of-memory kill); it is not run again")
    redis.call("HINCRBY", KEYS[4], "failed", 1)
    failAtTarget()
    return "abandoned"
  end
end
redis.call("HSET", KEYS[1], "status", "waiting", "lease", "", "leaseUntil", "",
  "worker", "", "reserved", "", "nextWakeAt", now + tonumber(ARGV[4]), "updatedAt", now)
redis.call("ZADD", KEYS[3], now + tonumber(ARGV[4]), ARGV[1])
return "released"
