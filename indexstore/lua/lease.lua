-- lease: take or renew the indexing lease of a chain's index, which lets
-- one replica at a time follow the chain and start triggered sessions.
--
-- KEYS[1] xgr:{idx:C}:lease       string "<holder> <token>", expires (PX)
-- KEYS[2] xgr:{idx:C}:leasefence  integer: the last token handed out
-- ARGV[1] holder (a replica name, no spaces)  ARGV[2] lease duration (ms)
--
-- Returns {"ok", token} when the caller holds the lease now (renewed: the
-- same token; taken: a new one), or {"held", holder} when another holder's
-- lease is live.
-- Invariant: at most one holder at a time; every new holding gets a token
-- larger than any before, and commit/rewind refuse a fence (the lease
-- value) that is not the live lease's.
local cur = redis.call("GET", KEYS[1])
if cur then
  local holder = string.match(cur, "^(%S+) %d+$")
  if holder ~= ARGV[1] then
    return {"held", holder or cur}
  end
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return {"ok", string.match(cur, " (%d+)$")}
end
local token = redis.call("INCR", KEYS[2])
redis.call("SET", KEYS[1], ARGV[1] .. " " .. token, "PX", ARGV[2])
return {"ok", tostring(token)}
