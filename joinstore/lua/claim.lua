-- claim: move due waiting processes of one session to running, each with an
-- inFlight lease carrying a fresh fencing token.
--
-- KEYS[1] xgr:T:meta (fields fence and iter: the fencing token and iter counters)
-- KEYS[2] xgr:T:due  KEYS[3] xgr:T:run  KEYS[4] xgr:T:targets
-- KEYS[5..4+n] xgr:T:p:<iter> of each of the n candidates, in ARGV order
-- KEYS[5+n..] the dispatch gate's keys of candidates in groups with a join
--         target, as a "need" reply named them: xgr:T:p:<target> and
--         xgr:T:g:<group> (none on a first call)
-- ARGV[1] now (ms; "" = the server clock)  ARGV[2] lease duration (ms)  ARGV[3] worker id
-- ARGV[4] step table (JSON object step -> [reserve, bypass]): how many child
--         iters a claim of the step reserves, and whether it may exceed the
--         window (1 for join-creating steps); absent steps reserve 0
-- ARGV[5] record TTL (s)
-- ARGV[6] "0": a candidate whose gate needs keys not declared makes the
--         claim write nothing and reply "need"; "1" (the repeat): such a
--         candidate is skipped (stays due)
-- ARGV[7..6+n] candidate iters
--
-- Returns a flat list, per claimed process: iter, token, firstReservedIter,
-- resumeStep, resumePlain, parentPid, joinGroupId, threadHeadPid, and the
-- iter of the join target of its group ("" when none); then "finished"
-- when the aborts of the dispatch gate left the session no live process.
-- Candidates that are no longer due, not waiting, paused or killed are
-- skipped; claiming stops when the session's window is full. Returns
-- {"killed"} when the session was killed: nothing is claimed in it any
-- more (its waiting processes are reaped). Returns {"need", iter, group,
-- target, ...} (ARGV[6] "0" only), having written nothing, when a
-- candidate the gate must look at is in a group with a target whose keys
-- (p:<target>, g:<group>) are not declared: the caller repeats the claim
-- with them declared.
-- The dispatch gate: a candidate that would run but whose group's join
-- closed with kill is aborted instead ("gated") and leaves its group. A
-- kill closes such a join before the group's waiting members are killed
-- (kill, then a join step of the cascade): they never run meanwhile. The
-- target's record and the group's member hash are reached through the
-- declared keys (lib/declared.lua): every candidate's need is known before
-- the first write, so a claim never stops half-applied on an undeclared key.
-- Invariant: a process is running under exactly one lease; a join target is
-- never claimed by time (targets enter the due set only when promoted);
-- nothing runs in a group whose join closed with kill; the script reaches
-- declared keys only.
-- now: the caller's clock (ms) when it gives one, else the server's (TIME):
-- with a server clock every lease and due decision of every replica is
-- judged by one clock, whatever the replicas' own clocks say.
local m = redis.call("HMGET", KEYS[1], "killedAt", "window", "fence", "iter")
if m[1] and m[1] ~= "" then
  return {"killed"}
end
local now, nowS = clock(ARGV[1])
local leaseMs = tonumber(ARGV[2])
local window = tonumber(m[2] or "0") or 0
local running = 0
if window > 0 then
  -- Finished processes a commit left at score 0 do not count.
  running = redis.call("ZCOUNT", KEYS[3], nowS, "+inf")
end
local fence, iterNext = tonumber(m[3] or "0") or 0, tonumber(m[4] or "0") or 0
local steps = cjson.decode(ARGV[4])
local ttl = tonumber(ARGV[5])
local skipNeedy = ARGV[6] == "1"
local n = #ARGV - 6
-- Every candidate is read, and its gate decided, before the first write.
-- Nothing a claim writes changes what a later candidate reads (its own
-- record, due score and group's target; a target's closed and policy),
-- except a candidate named twice: its first occurrence decides it.
local cands = {}
local K -- the declared keys, by name (lib/declared.lua); only with targets
local need = {}
local seen = {}
for i = 1, n do
  local iter = ARGV[6 + i]
  local c = {iter = iter, skip = true}
  cands[i] = c
  if not seen[iter] then
    seen[iter] = true
    local score = redis.call("ZSCORE", KEYS[2], iter)
    if score and tonumber(score) <= now then
      c.skip = false
      local p = redis.call("HMGET", KEYS[4 + i], "status", "paused", "killedAt", "resumeStep", "resumePlain", "parentPid", "joinGroupId", "threadHeadPid")
      c.p = p
      c.target = ""
      if p[1] == "waiting" and p[7] and p[7] ~= "0" then
        -- The root group never has a join target.
        c.target = redis.call("HGET", KEYS[4], p[7]) or ""
      end
      if c.target ~= "" and p[2] ~= "1" and (p[3] == false or p[3] == "") then
        K = K or declaredKeys()
        if K.has("p:" .. c.target) and K.has("g:" .. p[7]) then
          local t = redis.call("HMGET", K.key("p:" .. c.target), "closed", "policy")
          c.gated = t[1] == "1" and t[2] == "kill"
        elseif skipNeedy then
          c.skip = true
        else
          for _, v in ipairs({iter, p[7], c.target}) do
            need[#need + 1] = v
          end
        end
      end
    end
  end
end
if #need > 0 then
  table.insert(need, 1, "need")
  return need
end
local out = {}
local finished = false
for i = 1, n do
  local c = cands[i]
  local iter, key, p = c.iter, KEYS[4 + i], c.p
  if c.skip then
    -- Not due, named before, or (ARGV[6] = 1) its gate's keys not declared.
  elseif c.gated then
    redis.call("HSET", key, "status", "aborted", "abortReason", "gated", "updatedAt", nowS)
    redis.call("ZREM", KEYS[2], iter)
    redis.call("HDEL", K.key("g:" .. p[7]), iter)
    if ttl > 0 then
      redis.call("EXPIRE", key, ttl)
    end
    if redis.call("HINCRBY", KEYS[1], "live", -1) <= 0 then
      redis.call("HSET", KEYS[1], "status", "finished", "finishedAt", nowS)
      finished = true
    end
  elseif p[1] == "waiting" and p[2] ~= "1" and (p[3] == false or p[3] == "") then
    local limits = steps[p[4]] or {0, 0}
    local reserve, bypass = tonumber(limits[1]), tonumber(limits[2])
    if window > 0 and running >= window and bypass ~= 1 then
      break
    end
    fence = fence + 1
    local token = int(fence)
    local first = "0"
    if reserve > 0 then
      first = int(iterNext + 1)
      iterNext = iterNext + reserve
    end
    local untilMs = int(now + leaseMs)
    redis.call("HSET", key, "status", "running", "lease", token, "leaseUntil", untilMs,
      "worker", ARGV[3], "reserved", first .. ":" .. int(reserve), "updatedAt", nowS)
    redis.call("ZREM", KEYS[2], iter)
    redis.call("ZADD", KEYS[3], untilMs, iter)
    running = running + 1
    for _, v in ipairs({iter, token, first, p[4], p[5], p[6], p[7], p[8], c.target}) do
      out[#out + 1] = v
    end
  end
end
if #out > 0 then
  redis.call("HSET", KEYS[1], "fence", int(fence), "iter", int(iterNext))
end
if finished then
  out[#out + 1] = "finished"
end
return out
