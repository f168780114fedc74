-- schema: check the Redis layout's schema version against this build's,
-- and record the newer of the two, at a replica's start.
--
-- KEYS[1] xgr:schema (hash: version, compatibleSince, build)
-- ARGV[1] this build's schema version  ARGV[2] the oldest schema version
--         whose replicas may share Redis with it (compatibleSince)
-- ARGV[3] "1": the operator says every older replica is stopped
--         (--upgrade-schema)  ARGV[4] this build's version (for reading)
--
-- Returns {verdict, stored version, stored compatibleSince, stored build}:
-- "set" (no schema recorded: this build's is now), "same", "raised" (an
-- older schema that this build may share Redis with, or an upgrade the
-- operator asked for: this build's is recorded now), "coexist" (a newer
-- build recorded a schema it shares with this one: left as it is),
-- "older" (an older schema this build cannot share: refused, nothing
-- written) or "newer" (a newer schema that does not share with this
-- build: refused, nothing written).
-- Invariant: the recorded version never goes down; it goes up past the
-- range the recorded build shares only on the operator's word.
local mine, since = tonumber(ARGV[1]), tonumber(ARGV[2])
local s = redis.call("HMGET", KEYS[1], "version", "compatibleSince", "build")
local function record(verdict)
  redis.call("HSET", KEYS[1], "version", mine, "compatibleSince", since, "build", ARGV[4])
  return {verdict, s[1] or "", s[2] or "", s[3] or ""}
end
if not s[1] then
  return record("set")
end
local v, c = tonumber(s[1]), tonumber(s[2]) or 0
if v == mine then
  return {"same", s[1], s[2] or "", s[3] or ""}
end
if v < mine then
  if since <= v or ARGV[3] == "1" then
    return record("raised")
  end
  return {"older", s[1], s[2] or "", s[3] or ""}
end
if c <= mine then
  return {"coexist", s[1], s[2] or "", s[3] or ""}
end
return {"newer", s[1], s[2] or "", s[3] or ""}
