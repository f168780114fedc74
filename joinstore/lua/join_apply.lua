-- join_apply: apply a join decision computed from the state join_lock read,
-- under that lock's fencing token, and release the lock.
--
-- KEYS[1] xgr:T:jl:<t>   KEYS[2] xgr:T:p:<t>   KEYS[3] xgr:T:g:<t>   KEYS[4] xgr:T:jq:<t>
-- KEYS[5] xgr:T:meta     KEYS[6] xgr:T:due     KEYS[7] xgr:T:run     KEYS[8] xgr:T:steps
-- KEYS[9] xgr:T:targets
-- KEYS[10] xgr:T:g:<P>   the target's own group P (it leaves it when it aborts)
-- KEYS[11] xgr:T:p:<target of P>  (KEYS[2] again when P has no target)
-- KEYS[12] xgr:T:jq:<target of P>
-- KEYS[13] xgr:T:jpend   targets with pending deliveries, by first push time
-- KEYS[14..] xgr:T:p:<iter> of each member to kill, in ARGV order
-- ARGV[1] token  ARGV[2] now (ms; "" = the server clock)  ARGV[3] pending entries consumed
-- ARGV[4] inbox (JSON)  ARGV[5] fail (JSON)
-- ARGV[6] verdict: open | satisfied | unfulfillable | kill (kill the waiting
--         members of an already closed kill-policy target: a cascade)
-- ARGV[7] merged payload (JSON, for satisfied)  ARGV[8] record TTL (s)
-- ARGV[9] target of P ("" = none)  ARGV[10] the target's abort reason when
-- the verdict is unfulfillable  ARGV[11..] iters of the members to kill
--
-- Returns {remaining, live, deliveredTo, killed, killedTargets}: remaining
-- pending entries (the caller runs another round when > 0), the session's
-- live count, the target of P that received this target's failure (or ""),
-- the iters the kill aborted, and among them the join targets whose own
-- policy is kill (their groups must be killed too).
-- Errors: LOCK_LOST (token not current: nothing changed); STALE_VIEW (a
-- member joined the group after the read, so a kill would miss it; the lock
-- is released and nothing changed).
-- An unfulfillable close adds 1 to the meta's unfulfillable tally (the
-- session's outcome, docs/runtime.md "Session outcomes").
-- Invariants: only the lock holder applies; deliveries are consumed exactly
-- once; a closed join never reopens; on a close with kill every waiting
-- member of the group is aborted at once.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
local token, now, ttl = ARGV[1], clock(ARGV[2]), tonumber(ARGV[8])
if redis.call("GET", KEYS[1]) ~= token then
  return redis.error_reply("LOCK_LOST join lock token is not current")
end
local t = redis.call("HMGET", KEYS[2], "closed", "policy", "resumeStep", "joinGroupId", "nextWakeAt", "paused", "pid")
local verdict = ARGV[6]
local closing = (verdict == "satisfied" or verdict == "unfulfillable") and t[1] ~= "1"
-- "kill" re-applies the kill of an already closed target (its group was
-- reached by a cascading kill).
local killing = t[2] == "kill" and (closing or (verdict == "kill" and t[1] == "1"))
local kills = {}
for i = 10, #ARGV do
  kills[ARGV[i]] = 13 + (i - 9)
end
if killing then
  for _, m in ipairs(redis.call("HKEYS", KEYS[3])) do
    if not kills[m] then
      redis.call("DEL", KEYS[1])
      return redis.error_reply("STALE_VIEW member " .. m .. " joined the group after the read")
    end
  end
end

redis.call("HSET", KEYS[2], "inbox", ARGV[4], "fail", ARGV[5], "updatedAt", now)
local consumed = tonumber(ARGV[3])
if consumed > 0 then
  redis.call("LTRIM", KEYS[4], consumed, -1)
end
local live = tonumber(redis.call("HGET", KEYS[5], "live") or "0")
local deliveredTo = ""
local killed, killedTargets = {}, {}

local function abort(key, iter, reason)
  redis.call("HSET", key, "status", "aborted", "abortReason", reason, "updatedAt", now)
  redis.call("ZREM", KEYS[6], iter)
  if ttl > 0 then
    redis.call("EXPIRE", key, ttl)
  end
  live = redis.call("HINCRBY", KEYS[5], "live", -1)
end

if closing then
  redis.call("HSET", KEYS[2], "closed", "1", "closedAt", now)
  local titer = string.match(t[7], ":(%d+)$")
  if verdict == "satisfied" then
    redis.call("HSET", KEYS[2], "resumePlain", ARGV[7])
    if t[6] ~= "1" then
      local wake = math.max(tonumber(t[5]) or 0, now)
      redis.call("ZADD", KEYS[6], wake, titer)
    end
  else
    -- Unfulfillable: the target aborts, and as a finished process of its own
    -- group P it fails its step there (cascade).
    abort(KEYS[2], titer, ARGV[10])
    redis.call("HINCRBY", KEYS[5], "unfulfillable", 1)
    redis.call("HDEL", KEYS[10], titer)
    if ARGV[9] ~= "" then
      local pt = redis.call("HMGET", KEYS[11], "closed", "policy")
      if pt[1] ~= "1" then
        redis.call("RPUSH", KEYS[12], cjson.encode({pid = t[7], from = t[3], aborted = true, valid = cjson.null, payload = "{}"}))
        redis.call("ZADD", KEYS[13], "NX", now, ARGV[9])
        deliveredTo = ARGV[9]
      elseif redis.call("EXISTS", KEYS[10]) == 0 then
        redis.call("HDEL", KEYS[9], t[4])
      end
    end
  end
end
if killing then
  for i = 11, #ARGV do
    local iter, key = ARGV[i], KEYS[13 + (i - 10)]
    local m = redis.call("HMGET", key, "status", "target", "closed", "policy")
    if m[1] == "waiting" then
      abort(key, iter, "join-kill")
      redis.call("HDEL", KEYS[3], iter)
      killed[#killed + 1] = iter
      if m[2] == "1" and m[3] ~= "1" then
        redis.call("HSET", key, "closed", "1", "closedAt", now)
        if m[4] == "kill" then
          killedTargets[#killedTargets + 1] = iter
        end
      end
    end
  end
end
if (closing or killing) and redis.call("EXISTS", KEYS[3]) == 0 then
  -- The group is empty and its join decided: forget the group.
  redis.call("HDEL", KEYS[9], string.match(t[7], ":(%d+)$"))
end

local remaining = redis.call("LLEN", KEYS[4])
if remaining == 0 then
  redis.call("ZREM", KEYS[13], string.match(t[7], ":(%d+)$"))
end
redis.call("DEL", KEYS[1])
if live <= 0 then
  redis.call("HSET", KEYS[5], "status", "finished", "finishedAt", now)
  if ttl > 0 then
    for _, k in ipairs({5, 6, 7, 8, 9, 13}) do
      redis.call("EXPIRE", KEYS[k], ttl)
    end
  end
end
return {remaining, live, deliveredTo, killed, killedTargets}
