-- wake_apply: wake waiting processes of one session: each becomes due now,
-- with the payload the caller merged from the one it read (compare-and-set
-- on updatedAt), and a woken entry in the session's history. A wake id makes
-- the wake happen at most once.
--
-- KEYS[1] xgr:T:meta  KEYS[2] xgr:T:due  KEYS[3] xgr:T:woken (hash: wake id -> ms)
-- KEYS[4] xgr:T:steps  KEYS[5..] xgr:T:p:<iter>, one per process to wake
-- ARGV[1] wake id ("" = none: an operator's or caller's wake, not deduplicated)
-- ARGV[2] now (ms; "" = the server clock)  ARGV[3] record TTL (s)  ARGV[4] proc_steps cap
-- ARGV[5] who woke (for the history)
-- ARGV[6..] per process three values: iter, updatedAt the caller read,
--           new resumePlain (JSON) or "" to keep it
--
-- Returns {"woken", iter...}, {"duplicate"} (the id was applied before;
-- nothing changed), {"changed"} (a process changed since the read: read
-- again and decide again; nothing changed) or {"killed"} (the session was
-- killed; nothing changed).
-- Invariants: a wake id is applied at most once; only processes that are
-- still waiting, unkilled and exactly as read are woken, all or none; a
-- join target never runs before its join closes, not even when woken.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
local id, now, ttl = ARGV[1], clock(ARGV[2]), tonumber(ARGV[3])
if id ~= "" and redis.call("HEXISTS", KEYS[3], id) == 1 then
  return {"duplicate"}
end
local killedAt = redis.call("HGET", KEYS[1], "killedAt")
if killedAt and killedAt ~= "" then
  return {"killed"}
end
local n = (#ARGV - 5) / 3
for i = 1, n do
  local p = redis.call("HMGET", KEYS[4 + i], "status", "updatedAt", "target", "closed", "killedAt")
  if p[1] ~= "waiting" or p[2] ~= ARGV[5 + 3 * i - 1] or (p[3] == "1" and p[4] ~= "1") or (p[5] and p[5] ~= "") then
    return {"changed"}
  end
end
local out = {"woken"}
for i = 1, n do
  local key, iter, plain = KEYS[4 + i], ARGV[5 + 3 * i - 2], ARGV[5 + 3 * i]
  redis.call("HSET", key, "nextWakeAt", now, "updatedAt", now)
  if plain ~= "" then
    redis.call("HSET", key, "resumePlain", plain)
  end
  if redis.call("HGET", key, "paused") ~= "1" then
    redis.call("ZADD", KEYS[2], now, iter)
  end
  local p = redis.call("HMGET", key, "pid", "resumeStep")
  redis.call("XADD", KEYS[4], "MAXLEN", "~", ARGV[4], "*", "event", "woken", "pid", p[1], "step", p[2], "at", now, "by", ARGV[5])
  out[#out + 1] = iter
end
if id ~= "" then
  redis.call("HSET", KEYS[3], id, now)
  if ttl > 0 then
    redis.call("EXPIRE", KEYS[3], ttl)
  end
end
return out
