-- kill_session: mark a whole session killed, in O(1). Its waiting processes
-- are aborted afterwards in bounded batches (Reap: by the caller, and by
-- the replica that runs the session, which claims nothing in a killed
-- session); running ones are recorded aborted at their commit, or at
-- recovery if their replica died.
--
-- KEYS[1] xgr:T:meta
-- ARGV[1] now (ms)  ARGV[2] reason  ARGV[3] kind (killKind: "kill" for an
--          operator's kill; see docs/runtime.md "Session outcomes")
--
-- Returns {live, "killed"} (marked now), {live, "already"} (killed
-- before), or {0, "gone"} when the session does not exist.
-- Invariant: killedAt is set once and never cleared; no process is claimed
-- or created in a killed session afterwards.
if redis.call("EXISTS", KEYS[1]) == 0 then
  return {0, "gone"}
end
local live = tonumber(redis.call("HGET", KEYS[1], "live") or "0")
local k = redis.call("HGET", KEYS[1], "killedAt")
if k and k ~= "" then
  return {live, "already"}
end
redis.call("HSET", KEYS[1], "killedAt", ARGV[1], "killReason", ARGV[2], "killKind", ARGV[3])
return {live, "killed"}
