-- unlease: give the indexing lease back (a replica that stops), so another
-- replica takes over at once instead of after the lease expires.
--
-- KEYS[1] xgr:{idx:C}:lease  ARGV[1] the lease value "<holder> <token>"
--
-- Returns 1 when released, 0 when the caller no longer held it.
-- Invariant: only the holding named by the value is removed.
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
