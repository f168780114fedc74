-- meter_session: add a finished session to its owner's meter of the day
-- it finished on (docs/operating.md "Metering and billing"), once.
--
-- KEYS[1] xgr:{own:O}:meter:<day>    hash: the day's usage (sessions,
--                                    steps, gas, durationMs, bytes)
-- KEYS[2] xgr:{own:O}:metered:<day>  set: root pids metered that day
-- ARGV[1] the session's root pid
-- ARGV[2] how long both keys live (seconds; the meter's retention)
-- ARGV[3 ..] field, increment pairs (integers) added to KEYS[1]
--
-- Returns 1 when the session was metered now, 0 when it had been before
-- (nothing changes).
-- Invariant: a session is added to its owner's meter at most once: the
-- day is the one its meta's finishedAt names (fixed once it finished), and
-- the marker in KEYS[2] is written in the same script as the increments.
if redis.call("SADD", KEYS[2], ARGV[1]) == 0 then
  return 0
end
for i = 3, #ARGV - 1, 2 do
  redis.call("HINCRBY", KEYS[1], ARGV[i], ARGV[i + 1])
end
local ttl = tonumber(ARGV[2])
redis.call("EXPIRE", KEYS[1], ttl)
redis.call("EXPIRE", KEYS[2], ttl)
return 1
