-- meter_exec: add a final execution to its owner's meter of the day it
-- became final on (docs/operating.md "Metering and billing"), once.
--
-- KEYS[1] xgr:{own:O}:meter:<day>    hash: the day's usage
-- KEYS[2] xgr:{own:O}:metered:<day>  set: what was metered that day
-- KEYS[3] xgr:{own:O}:execgas        hash: root pid -> the gas of its
--                                    session's metered executions
-- ARGV[1] the marker: "x:" and the execution's idempotency key
-- ARGV[2] how long KEYS[1] and KEYS[3] live (seconds; the retention)
-- ARGV[3] how long KEYS[2] lives (seconds; the session TTL: an outcome is
--         polled again only until its step commits)
-- ARGV[4] the session's root pid   ARGV[5] the transaction's gas used
-- ARGV[6] value moved (gwei), ARGV[7] the wei below a gwei
-- ARGV[8] fee paid (gwei),    ARGV[9] the wei below a gwei
--
-- Returns 1 when the execution was metered now, 0 when it had been before
-- (nothing changes).
-- Invariant: an execution is added to its owner's meter at most once (the
-- day is the one its record's finalAt names; the marker is written with
-- the increments); its gas is remembered for its session, whose metering
-- (meter_session.lua) subtracts it from the session's gas.
if redis.call("SADD", KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call("HINCRBY", KEYS[1], "executions", 1)
redis.call("HINCRBY", KEYS[1], "execGas", ARGV[5])
redis.call("HINCRBY", KEYS[1], "valueGwei", ARGV[6])
redis.call("HINCRBY", KEYS[1], "valueWeiRest", ARGV[7])
redis.call("HINCRBY", KEYS[1], "feeGwei", ARGV[8])
redis.call("HINCRBY", KEYS[1], "feeWeiRest", ARGV[9])
redis.call("HINCRBY", KEYS[3], ARGV[4], ARGV[5])
local ttl = tonumber(ARGV[2])
redis.call("EXPIRE", KEYS[1], ttl)
redis.call("EXPIRE", KEYS[2], tonumber(ARGV[3]))
redis.call("EXPIRE", KEYS[3], ttl)
return 1
