-- unstall: a replica that holds a stalled session's root lease opened it
-- (it serves its orchestration): the stall record goes.
--
-- KEYS[1] xgr:T:lease  KEYS[2] xgr:T:meta
-- ARGV[1] replica id  ARGV[2] root lease token
--
-- Returns "cleared", or "stale" when the root lease is not ARGV[1]'s with
-- token ARGV[2]: nothing is written.
-- Invariant: stalled, stalledAt, stalledBy and stalls go together, and
-- only the lease holder removes them.
if redis.call("GET", KEYS[1]) ~= ARGV[1] .. " " .. ARGV[2] then
  return "stale"
end
redis.call("HDEL", KEYS[2], "stalled", "stalledAt", "stalledBy", "stalls")
return "cleared"
