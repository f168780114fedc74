-- kill: kill processes of one session. killedAt is authoritative: a waiting
-- process is aborted at once; a running one keeps running and its commit is
-- recorded aborted with no children (commit_step checks killedAt).
--
-- KEYS[1] xgr:T:meta  KEYS[2] xgr:T:due  KEYS[3] xgr:T:jpend
-- KEYS[4..] per process four keys: xgr:T:p:<iter>, xgr:T:g:<its group>,
--           xgr:T:p:<target of its group> (the process key when none),
--           xgr:T:jq:<target of its group>
-- KEYS[4 + 4n ..] after the n processes' keys, the session's records
--           (lib/expire_records.lua): meta, run, due, steps, wq, targets,
--           jpend, woken; they expire when the kill ends the session
-- ARGV[1] now (ms)  ARGV[2] record TTL (s)
-- ARGV[3..] per process two values: iter, target iter of its group ("" = none)
-- (A whole session is killed by kill_session; this script then aborts its
-- waiting processes in batches.)
--
-- Returns {live, then per process: iter, result} with result "aborted"
-- (was waiting), "killing" (running; aborted at its commit), "finished"
-- (already done or aborted); an executing process (its execution was
-- sent) is "killing" too; and for each aborted waiting join target its
-- iter prefixed "target:" (its own group may have to be killed), and
-- "deliver:<t>" for each target that got a failure delivery.
-- A process killed here while its session is not killed as a whole adds 1
-- to the meta's killed tally (the session's outcome, docs/runtime.md
-- "Session outcomes"), once per process.
-- Invariant: a killed process never runs again and never creates processes;
-- a killed waiting process fails its step at its group's open join target;
-- a session the kill ends has every record expiring.
local now, ttl = ARGV[1], tonumber(ARGV[2])
local out = {}
local delivered = {}
local n = (#ARGV - 2) / 2
local sk = redis.call("HGET", KEYS[1], "killedAt")
local tally = not sk or sk == ""
for i = 1, n do
  local iter, titer = ARGV[2 + 2 * i - 1], ARGV[2 + 2 * i]
  local pkey, gkey, tkey, qkey = KEYS[4 * i], KEYS[4 * i + 1], KEYS[4 * i + 2], KEYS[4 * i + 3]
  local p = redis.call("HMGET", pkey, "status", "pid", "resumeStep", "target", "closed", "policy", "killedAt")
  if tally and (p[1] == "waiting" or ((p[1] == "running" or p[1] == "executing") and (not p[7] or p[7] == ""))) then
    redis.call("HINCRBY", KEYS[1], "killed", 1)
  end
  if p[1] == "waiting" then
    redis.call("HSET", pkey, "status", "aborted", "abortReason", "killed", "killedAt", now, "updatedAt", now)
    redis.call("ZREM", KEYS[2], iter)
    redis.call("HDEL", gkey, iter)
    redis.call("HINCRBY", KEYS[1], "live", -1)
    if ttl > 0 then
      redis.call("EXPIRE", pkey, ttl)
    end
    if p[4] == "1" and p[5] ~= "1" then
      redis.call("HSET", pkey, "closed", "1", "closedAt", now)
      if p[6] == "kill" then
        out[#out + 1] = "target:" .. iter
      end
    end
    if titer ~= "" then
      local t = redis.call("HGET", tkey, "closed")
      if t ~= "1" then
        redis.call("RPUSH", qkey, cjson.encode({pid = p[2], from = p[3], aborted = true, valid = cjson.null, payload = "{}"}))
        redis.call("ZADD", KEYS[3], "NX", now, titer)
        if not delivered[titer] then
          delivered[titer] = true
          out[#out + 1] = "deliver:" .. titer
        end
      end
    end
    out[#out + 1] = iter .. "=aborted"
  elseif p[1] == "running" or p[1] == "executing" then
    -- An executing process's transaction may still land: it keeps polling
    -- and its commit records the outcome, aborted, with no children.
    redis.call("HSET", pkey, "killedAt", now, "updatedAt", now)
    out[#out + 1] = iter .. "=killing"
  else
    out[#out + 1] = iter .. "=finished"
  end
end
local live = tonumber(redis.call("HGET", KEYS[1], "live") or "0")
if live <= 0 then
  redis.call("HSET", KEYS[1], "status", "finished", "finishedAt", now)
  expireRecords(4 + 4 * n, #KEYS, ttl)
end
table.insert(out, 1, tostring(live))
return out
