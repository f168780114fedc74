-- lease: take or renew the sender's lease. The holder alone runs the
-- sender's tick (recovery, bumps, receipts, gap fills); every transition
-- the tick commits carries the lease token and is refused once the lease
-- has passed to another replica.
--
-- KEYS[1] xgr:txm:{T}:sender
-- ARGV[1] holder id (the replica)  ARGV[2] lease duration (ms)
-- ARGV[3] now (ms; "" = the server clock)
--
-- Returns {token, "renewed"} when ARGV[1] held the lease, {token,
-- "acquired", previous holder} when the lease was free or expired (a new,
-- larger token; the previous holder is "" for a sender never leased), or
-- {"", "held", holder, leaseUntil} when another replica holds it.
-- Every take or renewal writes leaseAt (now, ms): a holder that stopped
-- renewing is seen by the others (Manager.Observe) before its lease ends.
-- Invariant: at most one holder at a time; each new holder has a larger
-- token than every earlier one.
local n, now = clock(ARGV[3])
local l = redis.call("HMGET", KEYS[1], "lease", "leaseUntil", "fence")
local untilMs = int(n + tonumber(ARGV[2]))
if l[1] == ARGV[1] and tonumber(l[2] or "0") >= n then
  redis.call("HSET", KEYS[1], "leaseUntil", untilMs, "leaseAt", int(n))
  return {l[3], "renewed"}
end
if l[1] and l[1] ~= "" and tonumber(l[2] or "0") >= n then
  return {"", "held", l[1], l[2]}
end
local token = int(redis.call("HINCRBY", KEYS[1], "fence", 1))
redis.call("HSET", KEYS[1], "lease", ARGV[1], "leaseUntil", untilMs, "leaseAt", int(n))
return {token, "acquired", l[1] or ""}
