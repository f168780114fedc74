-- index: add a grant to its grantee's list, or remove it (package grant).
--
-- KEYS[1] xgr:{gg:<grantee>}:seq   KEYS[2] xgr:{gg:<grantee>}:list
-- ARGV[1] "add" or "del"  ARGV[2] member "<scope>:<rid>"  ARGV[3] expireAt (unix ms; add)
--
-- Returns the member's id (its score: the listing order and cursor), 0 for del.
-- Invariant: a member keeps the id it was first given while it is listed;
-- ids only grow; both keys live at least as long as the grantee's last grant.
if ARGV[1] == "del" then
  redis.call("ZREM", KEYS[2], ARGV[2])
  return 0
end
local id = redis.call("ZSCORE", KEYS[2], ARGV[2])
if not id then
  id = redis.call("INCR", KEYS[1])
  redis.call("ZADD", KEYS[2], id, ARGV[2])
end
for _, key in ipairs(KEYS) do
  if redis.call("PTTL", key) == -1 then
    redis.call("PEXPIREAT", key, ARGV[3])
  else
    redis.call("PEXPIREAT", key, ARGV[3], "GT")
  end
end
return tonumber(id)
