-- commit_step: record the result of one execution under its lease, with the
-- children it creates, the proc_steps entry and every index update at once.
--
-- KEYS[1] xgr:T:meta  KEYS[2] xgr:T:run  KEYS[3] xgr:T:due  KEYS[4] xgr:T:steps
-- KEYS[5] xgr:T:iter  KEYS[6] xgr:T:fence (both expire with the session)
-- KEYS[7] xgr:T:p:<iter> (the committing process)
-- KEYS[8..] xgr:T:p:<child iter>, in ARGV order
-- ARGV[1] iter  ARGV[2] token  ARGV[3] now (ms)  ARGV[4] status (done|aborted)
-- ARGV[5] lastStep  ARGV[6] lastEvalValid (1|0|"")  ARGV[7] payload digest
-- ARGV[8] worker  ARGV[9] record TTL (s)  ARGV[10] proc_steps cap (entries)
-- ARGV[11] number of children, then per child five values:
--          iter, resumeStep, nextWakeAt (ms), resumePlain (JSON), joinGroupId
--
-- Returns {result, live, nextDue}: result "committed", or "killed" when the
-- process was killed while running (it is recorded aborted and creates no
-- children); live is the number of live processes left in the session;
-- nextDue the earliest nextWakeAt in the due set ("" when empty).
-- Errors: LEASE_LOST when the token is not the current lease (nothing is
-- changed); BAD_CHILD when a child iter was not reserved by this lease.
-- Invariant: a step is committed at most once, by its current lease holder;
-- child pids are unique because they come from the lease's reservation.
local PROC = 7
local now, ttl = ARGV[3], tonumber(ARGV[9])
local p = redis.call("HMGET", KEYS[PROC], "status", "lease", "killedAt", "reserved", "pid", "paused")
if p[1] ~= "running" or p[2] ~= ARGV[2] then
  return redis.error_reply("LEASE_LOST")
end
local killed = p[3] and p[3] ~= ""
local status = ARGV[4]
local nChildren = tonumber(ARGV[11])
if killed then
  status, nChildren = "aborted", 0
end
local first, count = 0, 0
if p[4] and p[4] ~= "" then
  local a, b = string.match(p[4], "^(%d+):(%d+)$")
  first, count = tonumber(a), tonumber(b)
end
for i = 1, nChildren do
  local it = tonumber(ARGV[11 + 5 * (i - 1) + 1])
  if it < first or it >= first + count then
    return redis.error_reply("BAD_CHILD child iter " .. it .. " is outside the lease's reservation")
  end
end
local pid = p[5]
local root = string.match(pid, "^(.*):%d+$")
redis.call("HSET", KEYS[PROC], "status", status, "lastStep", ARGV[5], "lastEvalValid", ARGV[6],
  "updatedAt", now, "lease", "", "leaseUntil", "", "worker", "", "reserved", "")
redis.call("ZREM", KEYS[2], ARGV[1])
local children = {}
for i = 1, nChildren do
  local base = 11 + 5 * (i - 1)
  local it, step, wake, plain, group = ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4], ARGV[base + 5]
  local cpid = root .. ":" .. it
  redis.call("HSET", KEYS[PROC + i],
    "pid", cpid, "parentPid", pid, "threadHeadPid", cpid, "status", "waiting",
    "paused", p[6] or "0", "resumeStep", step, "lastStep", "", "lastEvalValid", "",
    "nextWakeAt", wake, "resumePlain", plain, "joinGroupId", group,
    "killedAt", "", "createdAt", now, "updatedAt", now,
    "lease", "", "leaseUntil", "", "worker", "")
  if p[6] ~= "1" then
    redis.call("ZADD", KEYS[3], wake, it)
  end
  children[#children + 1] = cpid
end
redis.call("XADD", KEYS[4], "MAXLEN", "~", ARGV[10], "*",
  "pid", pid, "step", ARGV[5], "valid", ARGV[6], "status", status, "at", now,
  "worker", ARGV[8], "digest", ARGV[7], "children", table.concat(children, ","))
if ttl > 0 then
  redis.call("EXPIRE", KEYS[PROC], ttl)
end
local live = redis.call("HINCRBY", KEYS[1], "live", nChildren - 1)
if live <= 0 then
  redis.call("HSET", KEYS[1], "status", "finished", "finishedAt", now)
  if ttl > 0 then
    for k = 1, 6 do
      redis.call("EXPIRE", KEYS[k], ttl)
    end
  end
end
local nextDue = redis.call("ZRANGE", KEYS[3], 0, 0, "WITHSCORES")
local result = "committed"
if killed then
  result = "killed"
end
return {result, live, nextDue[2] or ""}
