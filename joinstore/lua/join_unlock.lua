-- join_unlock: give up a join lock without applying anything (the decision
-- failed), if it is still ours.
--
-- KEYS[1] xgr:T:jl:<t>
-- ARGV[1] the lock's fencing token
--
-- Returns "released", or "stale" when the lock expired and another holder
-- took it: its lock is left alone.
-- Invariant: a holder never releases a join lock another holder has.
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return "released"
end
return "stale"
