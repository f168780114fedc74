-- root_seq: the owner's last root pid, as a start counts it. Not a
-- transition itself; alloc_root (which allocates the one after it) and
-- next_root (which reports the one after it) both count with it, so that
-- the root pid a caller is told comes next is the one a start allocates.
--
-- rootSeq(seqKey, rootsKey) returns the owner's counter (seqKey, the last
-- allocated root pid; INCR) raised to the newest session the owner's index
-- still holds (rootsKey, a zset of root pids), and the counter as stored.
-- The two differ only when Redis lost acknowledged writes of the counter
-- (an older append-only file, a failover to a replica that lacked them)
-- while a session it numbered survived. It writes nothing.
-- Invariant: the result is at least every root pid the owner's index holds.
local function rootSeq(seqKey, rootsKey)
  local stored = tonumber(redis.call("GET", seqKey) or "0")
  local seq = stored
  local newest = redis.call("ZREVRANGE", rootsKey, 0, 0)[1]
  if newest and tonumber(newest) > seq then
    seq = tonumber(newest)
  end
  return seq, stored
end
