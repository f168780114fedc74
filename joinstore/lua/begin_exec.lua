-- begin_exec: a running process whose selected branch has an execution
-- enters status executing, before the execution is sent: the record of
-- the step's decision (branch, outputs, wait, wake-ups, what a revert flip
-- needs, the call) and the execution's idempotency key are kept on the
-- process, so that whoever holds it later finishes the step from them
-- without evaluating its rule again. Also the revert flip: an executing
-- process whose execution reverted records the onInvalid branch's own
-- execution under its own key, once.
--
-- KEYS[1] xgr:T:p:<iter>  KEYS[2] xgr:T:meta
-- ARGV[1] token  ARGV[2] now (ms; "" = the server clock)
-- ARGV[3] the execution's idempotency key  ARGV[4] the record (JSON)
-- ARGV[5] "1" for the revert flip, "" for a step's first execution
-- ARGV[6] "1": the step's rule asks for sealed logs; the process is marked
--         sealed (field sealed "1"; views then show none of its payload
--         values), with the record, and stays so; "" marks nothing
--
-- Returns "begun" (now executing under ARGV[3]), "flipped" (the flip's
-- key and record replaced the reverted one's), "already" (the process
-- already executes under ARGV[3]: a retry, nothing changed), or "killed"
-- (the process or its session was killed before anything was sent:
-- nothing changed; the caller commits the step aborted and sends
-- nothing).
-- Errors: LEASE_LOST (ARGV[1] is not the current lease, or it expired),
-- BAD_EXEC (the process executes under another key and this is not its
-- one flip).
-- Invariant: a process enters executing once and flips at most once; an
-- executing process's key changes only by its flip; nothing is recorded
-- for a killed process, so a killed step never sends.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME).
local p = redis.call("HMGET", KEYS[1], "status", "lease", "leaseUntil", "killedAt", "execKey", "execFlipped")
if (p[1] ~= "running" and p[1] ~= "executing") or p[2] ~= ARGV[1] then
  return redis.error_reply("LEASE_LOST token is not the current lease")
end
local now, nowS = clock(ARGV[2])
if tonumber(p[3]) < now then
  return redis.error_reply("LEASE_LOST the lease expired at " .. p[3])
end
if p[1] == "executing" then
  if p[5] == ARGV[3] then
    return "already"
  end
  if ARGV[5] ~= "1" or p[6] == "1" then
    return redis.error_reply("BAD_EXEC the process executes under key " .. tostring(p[5]) .. "; only its one revert flip may change it")
  end
  redis.call("HSET", KEYS[1], "execKey", ARGV[3], "execRecord", ARGV[4], "execFlipped", "1", "updatedAt", nowS)
  if ARGV[6] == "1" then
    redis.call("HSET", KEYS[1], "sealed", "1")
  end
  return "flipped"
end
local killed = redis.call("HGET", KEYS[2], "killedAt")
if (p[4] and p[4] ~= "") or (killed and killed ~= "") then
  return "killed"
end
redis.call("HSET", KEYS[1], "status", "executing", "execKey", ARGV[3], "execRecord", ARGV[4], "updatedAt", nowS)
if ARGV[6] == "1" then
  redis.call("HSET", KEYS[1], "sealed", "1")
end
return "begun"
