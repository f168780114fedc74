-- join_lock: take the join lock of a target and read, in the same atomic
-- step, everything its decision needs: the target, the live members of the
-- join group it accepts deliveries from, and its pending deliveries.
--
-- KEYS[1] xgr:T:jl:<t>     the lock (value: fencing token, expires)
-- KEYS[2] xgr:T:p:<t>      the target process
-- KEYS[3] xgr:T:g:<t>      live members of the target's from-group (the
--                          fresh group a join creates is named by its target's iter)
-- KEYS[4] xgr:T:jq:<t>     pending deliveries (JSON entries, oldest first)
-- KEYS[5] xgr:T:meta       its field fence is the fencing token counter
-- KEYS[6] xgr:T:targets    join group id -> target iter
-- ARGV[1] lock duration (ms)
--
-- Returns {"busy"} when another holder has the lock, {"gone"} when the
-- target does not exist, else {token, target fields (flat HGETALL), group
-- members (flat iter, step), pending entries, target of the target's own group or ""}.
-- Invariant: one holder per target at a time; every later write under the
-- lock is checked against the token (join_apply).
if redis.call("EXISTS", KEYS[2]) == 0 then
  return {"gone"}
end
local token = redis.call("HINCRBY", KEYS[5], "fence", 1)
if not redis.call("SET", KEYS[1], token, "NX", "PX", ARGV[1]) then
  return {"busy"}
end
local group = redis.call("HGET", KEYS[2], "joinGroupId")
local parent = redis.call("HGET", KEYS[6], group) or ""
return {tostring(token), redis.call("HGETALL", KEYS[2]), redis.call("HGETALL", KEYS[3]),
  redis.call("LRANGE", KEYS[4], 0, -1), parent}
