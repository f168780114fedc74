-- release: give up the sender's lease (a replica that stops), so that
-- another replica takes over at once instead of after the lease expires.
--
-- KEYS[1] xgr:txm:{T}:sender
-- ARGV[1] lease token
--
-- Returns 1 when the lease was released, 0 when ARGV[1] did not hold it.
-- Invariant: only the holder releases; the token counter is kept, so the
-- next holder's token is still larger.
if redis.call("HGET", KEYS[1], "fence") ~= ARGV[1] then
  return 0
end
redis.call("HSET", KEYS[1], "lease", "", "leaseUntil", "0")
return 1
