-- bundle_stage: the first half of a commit that writes a record with it
-- (a step's log bundle, package evidence), run in the same MULTI/EXEC
-- right before commit_step; bundle_settle.lua runs right after it. The
-- record is staged (field "pending" = the committing lease's token) only
-- when the commit can apply: the process is running or executing under
-- that token. Sent with EVAL, never EVALSHA, so that it cannot fail with
-- NOSCRIPT while the commit applies.
--
-- KEYS[1] the record (it shares the session's hash tag)
-- KEYS[2] xgr:T:p:<iter>  the committing process
-- ARGV[1] the lease token  ARGV[2] the record's TTL (ms)
-- ARGV[3..] its field/value pairs
--
-- Returns 1 when staged, 0 when not (the record exists: write-once; or
-- the lease is not the token's).
if redis.call("EXISTS", KEYS[1]) == 1 then
  return 0
end
local p = redis.call("HMGET", KEYS[2], "status", "lease")
if (p[1] ~= "running" and p[1] ~= "executing") or p[2] ~= ARGV[1] then
  return 0
end
local args = {"pending", ARGV[1]}
for i = 3, #ARGV do
  args[#args + 1] = ARGV[i]
end
redis.call("HSET", KEYS[1], unpack(args))
redis.call("PEXPIRE", KEYS[1], ARGV[2])
return 1
