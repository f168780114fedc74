-- acquire_root: take or extend the root lease of a session, which gives one
-- replica the session's work. A replica that holds the lease extends it and
-- keeps its token; another replica gets it only after it expired.
--
-- KEYS[1] xgr:T:lease  (value "<replica> <token>", expires)
-- KEYS[2] xgr:T:meta   (the session must exist and be live; its field
--                      fence is the fencing token counter)
-- KEYS[3] xgr:T:wq     (or have wake-ups queued that are not yet performed)
-- ARGV[1] replica id  ARGV[2] lease duration (ms)
--
-- Returns the lease's fencing token, "held" when another replica holds it,
-- or "finished" when the session is gone or has no live process and no
-- queued wake-up. A new lease records its replica in meta field holder and
-- the one before in prevHolder, as adopt_root does, so that a later
-- takeover can name the replica it took over from.
-- Invariant: at most one replica holds a session's root lease at a time;
-- every new holder gets a larger token than any before.
local meta = redis.call("HMGET", KEYS[2], "status")
if not meta[1] or (meta[1] == "finished" and redis.call("HLEN", KEYS[3]) == 0) then
  return "finished"
end
local cur = redis.call("GET", KEYS[1])
if cur then
  local holder, token = string.match(cur, "^(%S+) (%d+)$")
  if holder == ARGV[1] then
    redis.call("PEXPIRE", KEYS[1], ARGV[2])
    return token
  end
  return "held"
end
local token = redis.call("HINCRBY", KEYS[2], "fence", 1)
redis.call("SET", KEYS[1], ARGV[1] .. " " .. token, "PX", ARGV[2])
local prev = redis.call("HGET", KEYS[2], "holder")
redis.call("HSET", KEYS[2], "holder", ARGV[1], "prevHolder", prev or "")
return tostring(token)
