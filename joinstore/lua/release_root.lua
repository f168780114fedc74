-- release_root: give up a root lease, if it is still ours.
--
-- KEYS[1] xgr:T:lease
-- ARGV[1] replica id  ARGV[2] token
--
-- Returns "released", or "stale" when the lease is not ours (it expired and
-- another replica took it): a second release is a reported no-op.
-- Invariant: a replica never releases a lease another replica holds.
if redis.call("GET", KEYS[1]) == ARGV[1] .. " " .. ARGV[2] then
  redis.call("DEL", KEYS[1])
  return "released"
end
return "stale"
