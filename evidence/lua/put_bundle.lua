-- put_bundle: store a step's log bundle once (package evidence, Store.Put).
--
-- KEYS[1] xgr:log:{<owner>:<rootPid>}:<iter>
-- ARGV[1] TTL (ms)  ARGV[2..] field/value pairs: v, rid, enc, bytes, body
--
-- Returns 1 when stored, 0 when the bundle was there already (nothing
-- written: a step committed again after a crash keeps its first bundle).
-- Invariant: a bundle is written at most once and always with its TTL.
if redis.call("EXISTS", KEYS[1]) == 1 then
  return 0
end
local args = {}
for i = 2, #ARGV do
  args[i - 1] = ARGV[i]
end
redis.call("HSET", KEYS[1], unpack(args))
redis.call("PEXPIRE", KEYS[1], ARGV[1])
return 1
