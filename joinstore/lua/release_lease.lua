-- release_lease: give up a running process's lease without a result (the
-- execution failed transiently); the process returns to the due set at
-- ARGV[4] to be claimed again.
--
-- KEYS[1] xgr:T:p:<iter>  KEYS[2] xgr:T:run  KEYS[3] xgr:T:due
-- ARGV[1] iter  ARGV[2] token  ARGV[3] now (ms)  ARGV[4] retry at (ms)
--
-- Returns "released", or "stale" when the token is no longer the current
-- lease (a second release is a reported no-op, never a second effect).
-- Invariant: a lease is released at most once; a stale holder changes nothing.
local p = redis.call("HMGET", KEYS[1], "status", "lease")
if p[1] ~= "running" or p[2] ~= ARGV[2] then
  return "stale"
end
redis.call("HSET", KEYS[1], "status", "waiting", "lease", "", "leaseUntil", "",
  "worker", "", "reserved", "", "nextWakeAt", ARGV[4], "updatedAt", ARGV[3])
redis.call("ZREM", KEYS[2], ARGV[1])
redis.call("ZADD", KEYS[3], ARGV[4], ARGV[1])
return "released"
