-- wake_done: forget a wake-up the session's commit queued once it has been
-- performed (or found to be a no-op), and record its outcome in the
-- session's history.
--
-- KEYS[1] xgr:T:wq (hash: wake id -> wake-up JSON)  KEYS[2] xgr:T:steps
-- KEYS[3] xgr:T:meta
-- ARGV[1] wake id  ARGV[2] now (ms)  ARGV[3] proc_steps cap
-- ARGV[4] pid that committed it  ARGV[5] its step  ARGV[6] outcome text
--
-- Returns {done, finished}: done 1 when this call removed the entry (0: an
-- earlier call did; nothing recorded twice); finished 1 when the session has
-- no live process and no queued wake-up left.
-- Invariant: each queued wake-up's outcome is recorded exactly once.
local removed = redis.call("HDEL", KEYS[1], ARGV[1])
if removed == 1 then
  redis.call("XADD", KEYS[2], "MAXLEN", "~", ARGV[3], "*", "event", "wakeup", "pid", ARGV[4], "step", ARGV[5], "at", ARGV[2], "outcome", ARGV[6])
end
local finished = 0
if redis.call("HGET", KEYS[3], "status") == "finished" and redis.call("HLEN", KEYS[1]) == 0 then
  finished = 1
end
return {removed, finished}
