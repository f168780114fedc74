-- wake: make a waiting process due now, with a new payload that the caller
-- merged from the one it read (compare-and-set on updatedAt).
--
-- KEYS[1] xgr:T:p:<iter>  KEYS[2] xgr:T:due
-- ARGV[1] iter  ARGV[2] now (ms)  ARGV[3] updatedAt the caller read
-- ARGV[4] new resumePlain (JSON) or "" to keep it
--
-- Returns "woken", "changed" (the process changed since the read: read
-- again and retry), "not_waiting" (running or finished), or "join_open" (a
-- join target before its join closed: it is due only through its join).
-- Invariant: a join target never runs before its join closes, not even when
-- woken.
local p = redis.call("HMGET", KEYS[1], "status", "updatedAt", "target", "closed", "paused")
if p[1] ~= "waiting" then
  return "not_waiting"
end
if p[2] ~= ARGV[3] then
  return "changed"
end
if p[3] == "1" and p[4] ~= "1" then
  return "join_open"
end
redis.call("HSET", KEYS[1], "nextWakeAt", ARGV[2], "updatedAt", ARGV[2])
if ARGV[4] ~= "" then
  redis.call("HSET", KEYS[1], "resumePlain", ARGV[4])
end
if p[5] ~= "1" then
  redis.call("ZADD", KEYS[2], ARGV[2], ARGV[1])
end
return "woken"
