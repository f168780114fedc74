-- forget_root: before a session's entry leaves the global root index, make
-- sure the session cannot appear after that: a start writes the index entry
-- before it creates the session (Store.Start), so a replica may find the
-- entry of a session that does not exist yet. It leaves a tombstone that
-- start_session refuses ("gone"); the start then allocates another root pid.
--
-- A finished session's records that have no time to live get it (the
-- session TTL): the net under every path that ends a session.
--
-- KEYS[1] xgr:T:gone  KEYS[2 ..] the session's records
--         (lib/expire_records.lua), meta first
-- ARGV[1] how long the tombstone stays (ms; the session TTL)
--
-- Returns "gone" when the session did not exist (the tombstone is set),
-- else its status ("live" or "finished"): a live session keeps its entry.
-- Invariant: once this returned "gone", no session of this root pid is
-- created while the tombstone lasts; once it returned "finished", every
-- record of the session expires.
local status = redis.call("HGET", KEYS[2], "status")
if status then
  if status == "finished" then
    expireRecords(2, #KEYS, math.ceil(tonumber(ARGV[1]) / 1000))
  end
  return status
end
redis.call("SET", KEYS[1], "1", "PX", ARGV[1])
return "gone"
