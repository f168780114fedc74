-- adopt_root: take a session's root lease and read what its new holder needs
-- to run it (what Open reads), and claim its root process when that is due
-- and has never run (a fresh session): a session starts in one round trip.
--
-- KEYS[1] xgr:T:lease  KEYS[2] xgr:T:meta  KEYS[3] xgr:T:wq  KEYS[4] xgr:T:run
-- KEYS[5] xgr:T:jpend  KEYS[6] xgr:T:due   KEYS[7] xgr:T:p:1 (the root process)
-- ARGV[1] replica id  ARGV[2] root lease (ms)  ARGV[3] now (ms; "" = the
-- server clock)  ARGV[4] process lease (ms)  ARGV[5] worker id of the claim
--
-- Returns {"held"} when another replica holds the lease, {"finished"} when
-- the session is gone or has no live process and no queued wake-up, else
-- {token, meta, expired, wakes, joins, due, next, claim}: token the root
-- lease's fencing token; meta the meta hash (flat field, value list); expired
-- the running processes whose lease expired before now; wakes the queued
-- wake-ups (flat id, entry list); joins the targets with pending deliveries;
-- due up to 64 iters due now; next the earliest later due time ("" none);
-- claim the claimed root process, empty or iter, token, first reserved
-- iter, reserve, resumeStep, resumePlain, parentPid, joinGroupId,
-- threadHeadPid.
-- A new lease records its replica in meta field holder and the replica
-- that held it before in prevHolder ("" for the first), so the new holder
-- can name whom it took the session over from.
-- The root process is claimed only when the session is not killed, no lease
-- expired (recovery comes first), the window has room, it is due, waiting
-- and unpaused, and start_session recorded its step's limits (reserve,
-- bypass; sessions started without them are claimed by claim).
-- Invariants: those of acquire_root (one holder at a time; every new holder
-- gets a larger token) and of claim (a process runs under exactly one
-- lease, with a fresh token and reservation; the window holds).
local meta = redis.call("HMGET", KEYS[2], "status")
if not meta[1] or (meta[1] == "finished" and redis.call("HLEN", KEYS[3]) == 0) then
  return {"finished"}
end
local cur = redis.call("GET", KEYS[1])
local token
if cur then
  local holder, t = string.match(cur, "^(%S+) (%d+)$")
  if holder ~= ARGV[1] then
    return {"held"}
  end
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  token = t
else
  token = int(redis.call("HINCRBY", KEYS[2], "fence", 1))
  redis.call("SET", KEYS[1], ARGV[1] .. " " .. token, "PX", ARGV[2])
  -- Who adopted the session before (for the operator's log of a takeover).
  local prev = redis.call("HGET", KEYS[2], "holder")
  redis.call("HSET", KEYS[2], "holder", ARGV[1], "prevHolder", prev or "")
end

local now, nowS = clock(ARGV[3])
-- Finished processes a commit left in the run set at score 0.
redis.call("ZREMRANGEBYSCORE", KEYS[4], "0", "0")
local expired = redis.call("ZRANGEBYSCORE", KEYS[4], "(0", "(" .. nowS)
local m = redis.call("HMGET", KEYS[2], "killedAt", "window", "fence", "iter")
local claim = {}
local score = redis.call("ZSCORE", KEYS[6], "1")
if #expired == 0 and (not m[1] or m[1] == "") and score and tonumber(score) <= now then
  local p = redis.call("HMGET", KEYS[7], "status", "paused", "killedAt", "resumeStep", "resumePlain",
    "parentPid", "joinGroupId", "threadHeadPid", "reserve", "bypass")
  local window = tonumber(m[2] or "0") or 0
  local room = window <= 0 or p[10] == "1" or redis.call("ZCOUNT", KEYS[4], nowS, "+inf") < window
  if p[1] == "waiting" and p[2] ~= "1" and (not p[3] or p[3] == "") and p[9] and room then
    local fence, iterNext = (tonumber(m[3] or "0") or 0) + 1, tonumber(m[4] or "0") or 0
    local reserve, first = tonumber(p[9]), "0"
    if reserve > 0 then
      first = int(iterNext + 1)
      iterNext = iterNext + reserve
    end
    local fenceS, untilS = int(fence), int(now + tonumber(ARGV[4]))
    redis.call("HSET", KEYS[7], "status", "running", "lease", fenceS, "leaseUntil", untilS,
      "worker", ARGV[5], "reserved", first .. ":" .. p[9], "updatedAt", nowS)
    redis.call("ZREM", KEYS[6], "1")
    redis.call("ZADD", KEYS[4], untilS, "1")
    redis.call("HSET", KEYS[2], "fence", fenceS, "iter", int(iterNext))
    -- The root process is in the root group, which never has a join target.
    claim = {"1", fenceS, first, p[9], p[4], p[5], p[6], p[7], p[8]}
  end
end

local next = redis.call("ZRANGEBYSCORE", KEYS[6], "(" .. nowS, "+inf", "WITHSCORES", "LIMIT", 0, 1)
return {
  token,
  redis.call("HGETALL", KEYS[2]),
  expired,
  redis.call("HGETALL", KEYS[3]),
  redis.call("ZRANGE", KEYS[5], 0, -1),
  redis.call("ZRANGEBYSCORE", KEYS[6], "-inf", nowS, "LIMIT", 0, 64),
  next[2] or "",
  claim,
}
