-- next_root: the root pid the owner's next session will get (read only).
--
-- KEYS[1] xgr:{own:O}:seq     last allocated rootPid
-- KEYS[2] xgr:{own:O}:roots   zset: rootPid by creation time
--
-- Returns {next, counter} (decimal strings): next is one above
-- lib/root_seq.lua's count, the root pid alloc_root allocates next for a
-- start without an idempotency key it knows (unless a start comes first,
-- or alloc_root forgets expired sessions of the index before it counts);
-- counter is the owner's counter as stored (below next - 1 when Redis
-- lost its writes).
-- Invariant: writes nothing.
local seq, stored = rootSeq(KEYS[1], KEYS[2])
return {int(seq + 1), int(stored)}
