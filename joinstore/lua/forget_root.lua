-- forget_root: before a session's entry leaves the global root index, make
-- sure the session cannot appear after that: a start writes the index entry
-- before it creates the session (Store.Start), so a replica may find the
-- entry of a session that does not exist yet. It leaves a tombstone that
-- start_session refuses ("gone"); the start then allocates another root pid.
--
-- KEYS[1] xgr:T:meta  KEYS[2] xgr:T:gone
-- ARGV[1] how long the tombstone stays (ms; the session TTL)
--
-- Returns "gone" when the session did not exist (the tombstone is set),
-- else its status ("live" or "finished"): a live session keeps its entry.
-- Invariant: once this returned "gone", no session of this root pid is
-- created while the tombstone lasts.
local status = redis.call("HGET", KEYS[1], "status")
if status then
  return status
end
redis.call("SET", KEYS[2], "1", "PX", ARGV[1])
return "gone"
