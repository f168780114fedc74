-- meter_session: add a finished session to its owner's meter of the day
-- it finished on (docs/operating.md "Metering and billing"), once.
--
-- KEYS[1] xgr:{own:O}:meter:<day>    hash: the day's usage
-- KEYS[2] xgr:{own:O}:metered:<day>  set: what was metered that day (root
--                                    pids; "x:<key>" for executions)
-- KEYS[3] xgr:{own:O}:execgas        hash: root pid -> the gas of its
--                                    session's metered executions
--                                    (meter_exec.lua)
-- ARGV[1] the session's root pid
-- ARGV[2] how long KEYS[1] lives (seconds; the meter's retention)
-- ARGV[3] how long KEYS[2] lives (seconds; the session TTL: no report of
--         the session comes once its records expired)
-- ARGV[4] the session's gas used (its meta's gasUsed: validation and
--         execution gas)
-- ARGV[5 ..] field, increment pairs (integers) added to KEYS[1]
--
-- Returns {1, validation gas} when the session was metered now (its gas
-- less its executions' gas, added to the day's validationGas), {0, 0}
-- when it had been before (nothing changes).
-- Invariant: a session is added to its owner's meter at most once: the
-- day is the one its meta's finishedAt names (fixed once it finished), and
-- the marker in KEYS[2] is written in the same script as the increments
-- and outlives the session's records (it is written after they were given
-- their TTL, and lives as long);
-- its executions' gas is counted once, as execGas (meter_exec.lua), never
-- again as validation gas.
if redis.call("SADD", KEYS[2], ARGV[1]) == 0 then
  return {0, 0}
end
local exec = tonumber(redis.call("HGET", KEYS[3], ARGV[1]) or "0")
redis.call("HDEL", KEYS[3], ARGV[1])
local validation = tonumber(ARGV[4]) - exec
if validation < 0 then
  validation = 0
end
redis.call("HINCRBY", KEYS[1], "validationGas", validation)
for i = 5, #ARGV - 1, 2 do
  redis.call("HINCRBY", KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call("EXPIRE", KEYS[1], tonumber(ARGV[2]))
redis.call("EXPIRE", KEYS[2], tonumber(ARGV[3]))
return {1, validation}
