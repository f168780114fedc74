-- renew_lease: extend a running (or executing) process's inFlight lease.
--
-- KEYS[1] xgr:T:p:<iter>  KEYS[2] xgr:T:run
-- ARGV[1] iter  ARGV[2] token  ARGV[3] now (ms; "" = the server clock)  ARGV[4] lease duration (ms)
--
-- Returns the new expiry (ms), or error "LEASE_LOST" when the token is not
-- the process's current lease (it was recovered, committed or released) or
-- the lease expired before now.
-- Invariant: only the current lease holder extends the lease.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
local p = redis.call("HMGET", KEYS[1], "status", "lease", "leaseUntil")
local now = clock(ARGV[3])
if (p[1] ~= "running" and p[1] ~= "executing") or p[2] ~= ARGV[2] or tonumber(p[3]) < now then
  return redis.error_reply("LEASE_LOST token is not the current lease or it expired")
end
local untilMs = now + tonumber(ARGV[4])
redis.call("HSET", KEYS[1], "leaseUntil", untilMs)
redis.call("ZADD", KEYS[2], untilMs, ARGV[1])
return untilMs
