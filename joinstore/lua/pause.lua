-- pause: set or clear the paused flag of processes of one session. A paused
-- waiting process leaves the due set (it is never promoted); resuming puts
-- it back at its nextWakeAt unless it is a join target whose join is open
-- (targets are due only once their join closed).
--
-- KEYS[1] xgr:T:meta  KEYS[2] xgr:T:due  KEYS[3..] xgr:T:p:<iter> per process
-- ARGV[1] 1 to pause, 0 to resume  ARGV[2] now (ms)
-- ARGV[3] 1 to set the session's own flag too (children of running
--         processes are then created paused)  ARGV[4..] iters
--
-- Returns per process "iter=paused|resumed|finished".
-- Invariant: a paused process is never claimed.
local pause = ARGV[1] == "1"
if ARGV[3] == "1" then
  redis.call("HSET", KEYS[1], "paused", ARGV[1])
end
local out = {}
for i = 4, #ARGV do
  local iter, key = ARGV[i], KEYS[i - 1]
  local p = redis.call("HMGET", key, "status", "nextWakeAt", "target", "closed")
  if p[1] == "waiting" or p[1] == "running" or p[1] == "executing" then
    redis.call("HSET", key, "paused", ARGV[1], "updatedAt", ARGV[2])
    if p[1] == "waiting" then
      if pause then
        redis.call("ZREM", KEYS[2], iter)
      elseif p[3] ~= "1" or p[4] == "1" then
        redis.call("ZADD", KEYS[2], p[2], iter)
      end
    end
    out[#out + 1] = iter .. (pause and "=paused" or "=resumed")
  else
    out[#out + 1] = iter .. "=finished"
  end
end
return out
