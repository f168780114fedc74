-- alloc_root: allocate a root pid for an owner, idempotently, and forget
-- sessions of the owner whose records have expired.
--
-- KEYS[1] xgr:{own:O}:seq     last allocated rootPid (INCR; never reset)
-- KEYS[2] xgr:{own:O}:idem    hash: idempotency key -> rootPid
-- KEYS[3] xgr:{own:O}:roots   zset: rootPid by creation time
-- KEYS[4] xgr:{own:O}:expire  zset: rootPid of finished sessions by expiry time
-- KEYS[5] xgr:{own:O}:idemof  hash: rootPid -> idempotency key
-- KEYS[6] xgr:{own:O}:slots   hash: rootPid -> process slots granted, "n"
--                             their sum (lib/slots.lua)
-- KEYS[7] xgr:{own:O}:starts  zset: rootPid by start time, the last minute
-- ARGV[1] idempotency key ("" = none, or "-" to only collect garbage and
--         raise the counter)
-- ARGV[2] now (ms)
-- ARGV[3] the rootPid the caller expects to get ("" = any): a SessionPermit
--         signs the session id it starts
-- ARGV[4] floor: the counter is raised to at least this ("" = none): a
--         session with that id survived a loss of the counter's writes
-- ARGV[5] a rootPid the key must no longer name ("" = none): its session
--         was given up before it was created (start_session said "gone") or
--         belongs to another start ("taken")
-- ARGV[6] the key of the start whose session holds ARGV[5] ("" = none):
--         the key names that session again (its mapping was lost with the
--         counter's writes), and the owner's index lists it
-- ARGV[7] "1" when ARGV[5] was given up (start_session said "gone"): it
--         never gets a session, so the owner's index forgets it now
-- ARGV[8] the owner's quotas (docs/operating.md "Tenancy"; "" or 0 = none):
--         live sessions, ARGV[9] starts per minute, ARGV[10] live processes,
--         ARGV[11] the process slots a session is granted at a time
--
-- Returns {rootPid, "new"|"existing", raised}, {"", "gc", raised} for a
-- collection only, or {next, "stale", raised} when ARGV[3] is not the
-- owner's next rootPid (nothing allocated; next is what it would have
-- been). raised is the counter's value before this call raised it (to the
-- newest indexed session or to the floor), "" when it was not raised: a
-- raised counter means Redis lost acknowledged writes. A start over a
-- quota returns {"", "quota", raised, quota name, limit, in use} and
-- allocates nothing. "new" and "existing" carry a fourth value: the
-- process slots granted to the session ("" = no live process quota).
-- Invariant: one idempotency key maps to one rootPid while its session
-- exists; rootPids of an owner are never reused, not even after Redis lost
-- recent writes of the counter (an older append-only file): the next pid is
-- above the newest session the owner's index still holds and above every
-- floor a caller found taken; the owner's indexes hold only sessions whose
-- records still exist; a new session is allocated only within the owner's
-- quotas (live sessions: indexed and not finished; starts in the last 60 s;
-- process slots, lib/slots.lua).
for _, r in ipairs(redis.call("ZRANGEBYSCORE", KEYS[4], "-inf", ARGV[2], "LIMIT", 0, 1000)) do
  redis.call("ZREM", KEYS[3], r)
  redis.call("ZREM", KEYS[4], r)
  local key = redis.call("HGET", KEYS[5], r)
  if key then
    redis.call("HDEL", KEYS[2], key)
    redis.call("HDEL", KEYS[5], r)
  end  local held = redis.call("HGET", KEYS[6], r)
  if held then
    redis.call("HDEL", KEYS[6], r)
    redis.call("HINCRBY", KEYS[6], "n", -tonumber(held))
  end
end
-- The counter, raised to the newest indexed session (lib/root_seq.lua) or
-- the floor if it fell behind.
local seq, was = rootSeq(KEYS[1], KEYS[3])
if ARGV[4] and ARGV[4] ~= "" and tonumber(ARGV[4]) > seq then
  seq = tonumber(ARGV[4])
end
local raised = ""
if seq > was then
  redis.call("SET", KEYS[1], seq)
  raised = tostring(was)
end
local key = ARGV[1]
if key == "-" then
  return {"", "gc", raised}
end
if key ~= "" and ARGV[5] and ARGV[5] ~= "" and redis.call("HGET", KEYS[2], key) == ARGV[5] then
  redis.call("HDEL", KEYS[2], key)
  redis.call("HDEL", KEYS[5], ARGV[5])
end
if ARGV[7] == "1" and ARGV[5] ~= "" then
  redis.call("ZREM", KEYS[3], ARGV[5])
  redis.call("ZREM", KEYS[4], ARGV[5])
  local held = redis.call("HGET", KEYS[6], ARGV[5])
  if held then
    redis.call("HDEL", KEYS[6], ARGV[5])
    redis.call("HINCRBY", KEYS[6], "n", -tonumber(held))
  end
end
if ARGV[6] and ARGV[6] ~= "" and ARGV[6] ~= "-" and not redis.call("HGET", KEYS[2], ARGV[6]) then
  redis.call("HSET", KEYS[2], ARGV[6], ARGV[5])
  redis.call("HSET", KEYS[5], ARGV[5], ARGV[6])
  redis.call("ZADD", KEYS[3], "NX", ARGV[2], ARGV[5])
end
local qSessions, qStarts, qProcs, chunk = tonumber(ARGV[8] or "") or 0, tonumber(ARGV[9] or "") or 0,
  tonumber(ARGV[10] or "") or 0, tonumber(ARGV[11] or "") or 1
if key ~= "" then
  local have = redis.call("HGET", KEYS[2], key)
  if have then
    -- A retry: its session keeps the slots it was granted (a first
    -- attempt cut before it was granted any gets them now).
    local grant = ""
    if qProcs > 0 then
      grant = redis.call("HGET", KEYS[6], have)
      if not grant then
        grant = tostring(slotsGrant(KEYS[6], KEYS[3], KEYS[4], have, 1, 0, 1))
      end
    end
    return {have, "existing", raised, grant}
  end
end
if ARGV[3] and ARGV[3] ~= "" then
  local nextRoot = seq + 1
  if tostring(nextRoot) ~= ARGV[3] then
    return {tostring(nextRoot), "stale", raised}
  end
end
-- The quotas, before anything is allocated.
if qSessions > 0 then
  local live = redis.call("ZCARD", KEYS[3]) - redis.call("ZCARD", KEYS[4])
  if live >= qSessions then
    return {"", "quota", raised, "live-sessions", ARGV[8], tostring(live)}
  end
end
if qStarts > 0 then
  redis.call("ZREMRANGEBYSCORE", KEYS[7], "-inf", tonumber(ARGV[2]) - 60000)
  local n = redis.call("ZCARD", KEYS[7])
  if n >= qStarts then
    return {"", "quota", raised, "starts-per-minute", ARGV[9], tostring(n)}
  end
end
if qProcs > 0 then
  local used = tonumber(redis.call("HGET", KEYS[6], "n") or "0")
  if used + 1 > qProcs then
    used = slotsReclaim(KEYS[6], KEYS[3], KEYS[4])
  end
  if used + 1 > qProcs then
    return {"", "quota", raised, "live-processes", ARGV[10], tostring(used)}
  end
end
local root = redis.call("INCR", KEYS[1])
if key ~= "" then
  redis.call("HSET", KEYS[2], key, root)
  redis.call("HSET", KEYS[5], root, key)
end
redis.call("ZADD", KEYS[3], ARGV[2], root)
if qStarts > 0 then
  redis.call("ZADD", KEYS[7], ARGV[2], root)
end
local grant = ""
if qProcs > 0 then
  grant = tostring(slotsGrant(KEYS[6], KEYS[3], KEYS[4], tostring(root), 1, qProcs, chunk))
end
return {tostring(root), "new", raised, grant}
