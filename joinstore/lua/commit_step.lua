-- commit_step: record the result of one execution under its lease, with the
-- children it creates, its delivery to its group's join target, the
-- proc_steps entry and every index update, all at once.
--
-- KEYS[1] xgr:T:meta   KEYS[2] xgr:T:run    KEYS[3] xgr:T:due   KEYS[4] xgr:T:steps
-- KEYS[5] xgr:T:iter   KEYS[6] xgr:T:fence  (iter and fence expire with the session)
-- KEYS[7] xgr:T:p:<iter>            the committing process
-- KEYS[8] xgr:T:targets             hash: join group id -> target iter
-- KEYS[9] xgr:T:g:<G>               live members of the process's group G
-- KEYS[10] xgr:T:p:<target of G>    (KEYS[7] again when G has no target)
-- KEYS[11] xgr:T:jq:<target of G>   pending deliveries of that target
-- KEYS[12] xgr:T:jpend              targets with pending deliveries
-- KEYS[13] xgr:T:wq                wake-ups of this session not yet performed
-- KEYS[14..] per child two keys: xgr:T:p:<child iter>, xgr:T:g:<child group>
-- ARGV[1] iter  ARGV[2] token  ARGV[3] now (ms; "" = the server clock)  ARGV[4] status (done|aborted)
-- ARGV[5] valid (1|0|"")  ARGV[6] payload digest  ARGV[7] worker
-- ARGV[8] record TTL (s)  ARGV[9] proc_steps cap  ARGV[10] target iter of G ("" = none)
-- ARGV[11] next payload (JSON object; delivered to G's target)
-- ARGV[12] children (JSON array of {iter, step, wakeIn (ms after now), plain, group} and, for a
--          join target, {fromGroup, expect, requireWhen, k, policy})
-- ARGV[13] abort reason ("" when none): kept on the process (abortReason)
--          and in its proc_steps entry
-- ARGV[14] the session's live process cap, ARGV[15] its step cap (0 = none):
--          a commit over either kills the session (killedAt, killReason), is
--          recorded aborted with that reason and creates nothing
-- ARGV[16..] the branch's wake-ups, two values each: wake id, wake-up JSON
--          (queued in KEYS[13] unless the process was killed)
--
-- Returns {result, live, nextDue, deliveredTo, gated, cap}: result
-- "committed" or "killed" (killed while running, or by a cap: recorded
-- aborted, no children); cap is the cap's reason or ""; live is
-- the session's live process count (a session whose last process ends
-- with wake-ups queued is finished, but stays adoptable until they are
-- performed); nextDue the earliest due time or "";
-- deliveredTo the target iter that got a pending delivery or ""; gated the
-- number of children dropped by the spawn gate.
-- Errors: LEASE_LOST (token not current, or the lease expired before now;
-- nothing changed), BAD_CHILD (child iter not reserved by this lease).
-- Invariants: a step is committed at most once, by its current lease holder;
-- child pids are unique (they come from the lease's reservation); no process
-- is created into a group whose join closed with kill, nor into the fresh
-- group of a join target gated there; a finished process
-- delivers to its group's open target exactly once (the pending list entry);
-- a committed step's wake-ups are queued exactly once, a killed one's never.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
local function clock(arg)
  if arg and arg ~= "" then
    return tonumber(arg)
  end
  local t = redis.call("TIME")
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local PROC, WQ, CHILD0 = 7, 13, 13
local now, ttl = clock(ARGV[3]), tonumber(ARGV[8])
local p = redis.call("HMGET", KEYS[PROC], "status", "lease", "killedAt", "reserved", "pid", "paused", "resumeStep", "joinGroupId", "leaseUntil")
if p[1] ~= "running" or p[2] ~= ARGV[2] then
  return redis.error_reply("LEASE_LOST token is not the current lease")
end
if tonumber(p[9]) < now then
  return redis.error_reply("LEASE_LOST the lease expired at " .. p[9])
end
local session = redis.call("HMGET", KEYS[1], "killedAt", "paused")
local killed = (p[3] and p[3] ~= "") or (session[1] and session[1] ~= "")
local childPaused = p[6] or "0"
if session[2] == "1" then
  childPaused = "1"
end
local status = ARGV[4]
local children = cjson.decode(ARGV[12])
if killed then
  status, children = "aborted", {}
end
-- Caps: a runaway session (endless spawning, an endless loop) is killed
-- by the commit that would go over them; its other processes observe the
-- kill and are aborted lazily.
local capReason = ""
local steps = redis.call("HINCRBY", KEYS[1], "steps", 1)
if not killed then
  local maxLive, maxSteps = tonumber(ARGV[14]), tonumber(ARGV[15])
  local liveAfter = tonumber(redis.call("HGET", KEYS[1], "live") or "1") - 1 + #children
  if maxSteps > 0 and steps > maxSteps then
    capReason = "step cap: the session committed its step " .. steps .. ", at most " .. maxSteps .. " are allowed (XGR_MAX_STEPS)"
  elseif maxLive > 0 and liveAfter > maxLive then
    capReason = "live process cap: the session would have " .. liveAfter .. " live processes, at most " .. maxLive .. " are allowed (XGR_MAX_LIVE)"
  end
  if capReason ~= "" then
    redis.call("HSET", KEYS[1], "killedAt", now, "killReason", capReason)
    killed, status, children = true, "aborted", {}
  end
end
local first, count = 0, 0
if p[4] and p[4] ~= "" then
  local a, b = string.match(p[4], "^(%d+):(%d+)$")
  first, count = tonumber(a), tonumber(b)
end
for _, c in ipairs(children) do
  local it = tonumber(c.iter)
  if it < first or it >= first + count then
    return redis.error_reply("BAD_CHILD child iter " .. it .. " is outside the lease's reservation")
  end
end
local pid, group, step = p[5], p[8], p[7]
local root = string.match(pid, "^(.*):%d+$")

-- The group's join target: spawn gate and delivery.
local targetIter = ARGV[10]
local gateKill, targetOpen = false, false
if targetIter ~= "" then
  local t = redis.call("HMGET", KEYS[10], "closed", "policy")
  targetOpen = t[1] ~= "1"
  gateKill = t[1] == "1" and t[2] == "kill"
end

redis.call("HSET", KEYS[PROC], "status", status, "lastStep", step, "lastEvalValid", ARGV[5],
  "updatedAt", now, "lease", "", "leaseUntil", "", "worker", "", "reserved", "", "resumePlain", ARGV[11])
local reason = ARGV[13]
if capReason ~= "" then
  reason = capReason
elseif killed then
  reason = "killed"
end
if reason ~= "" then
  redis.call("HSET", KEYS[PROC], "abortReason", reason)
end
if not killed and #ARGV > 15 then
  for i = 16, #ARGV, 2 do
    redis.call("HSET", KEYS[WQ], ARGV[i], ARGV[i + 1])
  end
  if ttl > 0 then
    redis.call("EXPIRE", KEYS[WQ], ttl)
  end
end
redis.call("ZREM", KEYS[2], ARGV[1])
redis.call("HDEL", KEYS[9], ARGV[1])
if targetIter ~= "" and not targetOpen and redis.call("EXISTS", KEYS[9]) == 0 then
  -- The group is empty and its join decided: forget the group.
  redis.call("HDEL", KEYS[8], group)
end

-- The spawn gate covers the whole join scope: a nested join's target gated
-- into the closed group takes its producers (its fresh group, named by the
-- target's iter) with it, so no half of a join is created.
local gatedGroup = {}
if gateKill then
  gatedGroup[group] = true
  for _, c in ipairs(children) do
    if c.expect and c.group == group then
      gatedGroup[c.iter] = true
    end
  end
end
local created, gated = {}, 0
for i, c in ipairs(children) do
  local pkey, gkey = KEYS[CHILD0 + 2 * i - 1], KEYS[CHILD0 + 2 * i]
  if gatedGroup[c.group] then
    gated = gated + 1
  else
    local cpid = root .. ":" .. c.iter
    local head = cpid
    if c.expect then
      head = redis.call("HGET", KEYS[PROC], "threadHeadPid") or pid
    end
    redis.call("HSET", pkey,
      "pid", cpid, "parentPid", pid, "threadHeadPid", head, "status", "waiting",
      "paused", childPaused, "resumeStep", c.step, "lastStep", "", "lastEvalValid", "",
      "nextWakeAt", now + tonumber(c.wakeIn), "resumePlain", c.plain, "joinGroupId", c.group,
      "killedAt", "", "createdAt", now, "updatedAt", now,
      "lease", "", "leaseUntil", "", "worker", "")
    redis.call("HSET", gkey, c.iter, c.step)
    if c.expect then
      -- A join target: never due by time; it waits for its join.
      redis.call("HSET", pkey, "target", "1", "joinFromGroupId", c.fromGroup, "expect", c.expect,
        "requireWhen", c.requireWhen, "k", c.k, "policy", c.policy,
        "inbox", "{}", "fromSeen", "{}", "fail", "{}", "closed", "0", "closedAt", "")
      redis.call("HSET", KEYS[8], c.fromGroup, c.iter)
    elseif childPaused ~= "1" then
      redis.call("ZADD", KEYS[3], now + tonumber(c.wakeIn), c.iter)
    end
    created[#created + 1] = cpid
  end
end

local deliveredTo = ""
if targetOpen then
  local valid = cjson.null
  if ARGV[5] ~= "" then
    valid = ARGV[5] == "1"
  end
  redis.call("RPUSH", KEYS[11], cjson.encode({pid = pid, from = step, aborted = status == "aborted", valid = valid, payload = ARGV[11]}))
  redis.call("ZADD", KEYS[12], "NX", now, targetIter)
  deliveredTo = targetIter
end

local entry = {"pid", pid, "step", step, "valid", ARGV[5], "status", status, "at", now,
  "worker", ARGV[7], "digest", ARGV[6], "children", table.concat(created, ",")}
if reason ~= "" then
  entry[#entry + 1] = "abortReason"
  entry[#entry + 1] = reason
end
redis.call("XADD", KEYS[4], "MAXLEN", "~", ARGV[9], "*", unpack(entry))
if ttl > 0 then
  redis.call("EXPIRE", KEYS[PROC], ttl)
end
local live = redis.call("HINCRBY", KEYS[1], "live", #created - 1)
if live <= 0 then
  redis.call("HSET", KEYS[1], "status", "finished", "finishedAt", now)
  if ttl > 0 then
    for k = 1, 6 do
      redis.call("EXPIRE", KEYS[k], ttl)
    end
    redis.call("EXPIRE", KEYS[WQ], ttl)
  end
end
local nextDue = redis.call("ZRANGE", KEYS[3], 0, 0, "WITHSCORES")
local result = "committed"
if killed then
  result = "killed"
end
return {result, live, nextDue[2] or "", deliveredTo, gated, capReason}
