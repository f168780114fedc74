-- stall: record on a session why the replica that holds its root lease
-- cannot run it (its orchestration is not one the replica serves, or not
-- the text the session pinned), so that operators see why it is not
-- progressing and the replica can back off before it is tried again.
--
-- KEYS[1] xgr:T:lease  KEYS[2] xgr:T:meta
-- ARGV[1] replica id  ARGV[2] root lease token  ARGV[3] reason
-- ARGV[4] now (ms)
--
-- Returns the number of stalls in a row (meta field stalls, this one
-- included), or "stale" when the root lease is not ARGV[1]'s with token
-- ARGV[2] (it expired and another replica took the session): nothing is
-- written.
-- Invariant: only the lease holder records a stall; stalled, stalledAt,
-- stalledBy and stalls are written together.
if redis.call("GET", KEYS[1]) ~= ARGV[1] .. " " .. ARGV[2] then
  return "stale"
end
if redis.call("EXISTS", KEYS[2]) == 0 then
  return "stale"
end
redis.call("HSET", KEYS[2], "stalled", ARGV[3], "stalledAt", ARGV[4], "stalledBy", ARGV[1])
return redis.call("HINCRBY", KEYS[2], "stalls", 1)
