-- commit_step: record the result of one execution under its lease, with the
-- children it creates, its delivery to its group's join target, the
-- proc_steps entry and every index update, all at once; and claim, in the
-- same step, the children that are ready now, so that the replica runs them
-- without another round trip.
--
-- KEYS[1] xgr:T:meta   (fields steps, live, fence, iter, killedAt, paused, window)
-- KEYS[2] xgr:T:run    KEYS[3] xgr:T:due    KEYS[4] xgr:T:steps
-- KEYS[5] xgr:T:p:<iter>            the committing process
-- KEYS[6] xgr:T:targets             hash: join group id -> target iter
-- KEYS[7] xgr:T:g:<G>               live members of the process's group G
-- KEYS[8] xgr:T:p:<target of G>     (KEYS[5] again when G has no target)
-- KEYS[9] xgr:T:jq:<target of G>    pending deliveries of that target
-- KEYS[10] xgr:T:jpend              targets with pending deliveries
-- KEYS[11] xgr:T:wq                 wake-ups of this session not yet performed
-- KEYS[12] xgr:T:jl:<target of G>   its join lock (KEYS[5] again when G has no target)
-- KEYS[13 .. 12 + 2C] per child two keys: xgr:T:p:<child iter>, xgr:T:g:<child group>
-- KEYS[13 + 2C ..] per child that is a join target, in child order, three
--          keys: xgr:T:g:<its iter> (its fresh group), xgr:T:jl:<its iter>,
--          xgr:T:jq:<its iter>
-- Every key the script reaches is one of these: the join decisions and the
-- deferred claims find the ones they name at run time among them
-- (lib/declared.lua), and leave to a join step what would reach others.
-- ARGV[1] iter  ARGV[2] token  ARGV[3] now (ms; "" = the server clock)  ARGV[4] status (done|aborted)
-- ARGV[5] valid (1|0|"")  ARGV[6] payload digest  ARGV[7] worker (of the
--          step, and of the children it claims)
-- ARGV[8] record TTL (s)  ARGV[9] proc_steps cap  ARGV[10] target iter of G ("" = none)
-- ARGV[11] next payload (JSON object; delivered to G's target)
-- ARGV[12] abort reason ("" when none): kept on the process (abortReason)
--          and in its proc_steps entry
-- ARGV[13] the session's live process cap, ARGV[14] its step cap (0 = none):
--          a commit over either kills the session (killedAt, killReason), is
--          recorded aborted with that reason and creates nothing
-- ARGV[15] claim lease (ms; 0 = claim nothing): children due now, not
--          paused and not join targets are created running under a lease
--          with a fresh fencing token, within the session's window; none
--          when a join decision this commit causes could still gate them
--          (see "Claims" below)
-- ARGV[16] number of children C
-- ARGV[17] session cancel reason ("" = none): the step holds a
--          cancelSession rule; the commit kills the session with this
--          reason as a cap does (killedAt, killReason), is recorded aborted
--          with it and creates nothing
--          (killKind "cancel"; a cap's killKind is "cap")
-- ARGV[18] the execution's outcome (JSON; "" = the step executed nothing):
--          kept on the process as execOutcome
-- ARGV[19] join decisions: "" = none (a delivery is left pending for a
--          join step); else the payload cap (bytes) a merged payload must
--          keep to, then, when the commit delivers to its group's target,
--          a space and the next payload in canonical form (Go's encoding
--          of it); see "Joins" below
-- ARGV[20] "1": the step's rule asks for sealed logs (docs/runtime.md,
--          "Sealed steps"); the process is marked sealed (field sealed "1")
--          and its execution record (execRecord: the call, its target and
--          arguments), which nothing reads after the commit, is dropped;
--          "" changes neither. The caller passes a sealed step's abort
--          reason and execution outcome (ARGV[12], ARGV[18]) without
--          payload values.
-- ARGV[21] the step's gas (validation gas and its execution's gas used; 0
--          = none): added to the session's gasUsed (meta)
-- ARGV[22] the operator's gas ceiling (0 = none): the session's gas budget
--          is its maxTotalGas (meta; the permit's), or the ceiling when that
--          is 0 or higher; a commit that takes gasUsed over the budget kills
--          the session as a cap does, killKind "budget"
-- ARGV[23 ..] per child 12 values: iter, step, wakeIn (ms after now), plain
--          ("" = the next payload), group, reserve (child iters a claim of
--          it reserves), bypass (1: may exceed the window), then for a join
--          target fromGroup, expect, requireWhen, k, policy (followed, when
--          the target keeps its reachability, by a space and its reach: JSON,
--          per from node the steps of the group's scope that can reach it;
--          without, its join is decided by join steps only) ("" otherwise)
-- ARGV[23 + 12C ..] the branch's wake-ups, two values each: wake id, wake-up
--          JSON (queued in KEYS[11] unless the process was killed)
--
-- Joins (lib/join_decide.lua), after the children are created and before
-- any of them is claimed, in the order the join steps after a commit took
-- them: with ARGV[19], first the first decision of every join this commit
-- creates whose target has reach (its producers are its members; no
-- delivery yet); then, with its payload, the delivery to the group's open
-- target, when no join lock is held on it, it keeps its reachability,
-- every pending delivery carries a canonical payload and the decision
-- reaches declared keys only: the pending ones, this one, then the
-- failures of joins just created and found unfulfillable. A close promotes
-- the target or aborts it (failing it into its own group's target, decided
-- here too when that is a join this commit created), kills waiting members
-- under policy kill. The decision is computed read-only before the first
-- write (d.evaluate); a close with kill while the group has members this
-- commit did not create (their keys are not declared), or an unfulfillable
-- close of a target whose group has a target (the parent's keys are not
-- declared), is left to a join step. The children and producers the
-- decisions leave waiting are claimed after them. Otherwise the delivery
-- is left pending (canonical, when ARGV[19] gave it), nothing is claimed
-- and deliveredTo names the target: a join step decides.
--
-- Returns {result, live, deliveredTo, gated, cap, joins, claims...}: result
-- "committed" or "killed" (killed while running, or by a cap: recorded
-- aborted, no children); live is the session's live process count (a
-- session whose last process ends with wake-ups queued is finished, but
-- stays adoptable until they are performed); deliveredTo the target iter
-- that got a pending delivery or ""; gated the number of children dropped
-- by the spawn gate; cap the cap's reason or ""; joins the joins decided
-- here ("" when none), one entry per target in order: {target, verdict (open, satisfied,
-- unfulfillable), {pid, from, delivery result ...}, {iters killed},
-- {follow-up target, kill (1|0) ...}} (a follow-up needs a join step: a
-- target this one failed into that could not be decided here, or a
-- kill-policy target the kill aborted); then per claimed child one
-- string "iter token first" and, when its group has a join target (as
-- claim.lua reads it), " target": its iter, its fencing token, its first
-- reserved iter and that target's iter (one reply string, not four).
-- Errors: LEASE_LOST (token not current, or the lease expired before now;
-- nothing changed), BAD_CHILD (child iter not reserved by this lease),
-- QUOTA <live after> (the session's meta allow, the process slots its
-- owner granted it, is below its live processes after this commit;
-- nothing changed).
-- Outcome tallies (docs/runtime.md "Session outcomes"), in the meta hash:
-- a commit recorded aborted by its own hard error (not killed, no cap, no
-- cancel) adds 1 to failed; a done step that evaluated invalid and leads
-- nowhere (no children asked for, and not a producer of a join: its group
-- has no join target, open or closed, so the count does not depend on
-- timing) adds 1 to invalidEnds.
-- Invariants: a step is committed at most once, by its current lease holder;
-- child pids are unique (they come from the lease's reservation); no process
-- is created into a group whose join closed with kill, nor into the fresh
-- group of a join target gated there; a finished process delivers to its
-- group's open target exactly once (the pending list entry); a committed
-- step's wake-ups are queued exactly once, a killed one's never; a claimed
-- child is running under exactly one lease, as if claim had claimed it; no
-- child is claimed before a join decision this commit causes.
-- Group membership is kept only for groups with a join target (the ones a
-- join decision or a kill policy reads); the root group has none.
-- A new process gets no empty fields (lastStep, lastEvalValid, killedAt,
-- lease, leaseUntil, worker): readers take a missing field as empty. Its
-- fields are written in the order the commit reads and writes them, hot
-- ones first (a small hash is a listpack, searched from its start).
-- The run set keeps a finished process at score 0 when the same ZADD adds
-- its claimed children (one command instead of two); 0 is never a lease
-- expiry, window counts start at now, and recovery drops such entries.
-- Numbers reach Redis as strings made once (nowS, int(): lib/clock.lua).
-- A number the script wrote itself or the caller gives is read with
-- s + 0 (one strtod; tonumber(s) takes two).
-- The globals this script uses most, KEYS and ARGV among them, as locals
-- (a global is a table lookup on every use).
local call, tonumber, sub, find, concat = redis.call, tonumber, string.sub, string.find, table.concat
local KEYS, ARGV = KEYS, ARGV
local fmt = string.format
local PROC, WQ, CHILD0, C0, CF = 5, 11, 12, 23, 12
-- ARGV[19]: the join decisions' payload cap and this commit's canonical payload
local joinCap, joinPiece = "", ""
if ARGV[19] ~= "" then
  local sp = find(ARGV[19], " ", 1, true)
  if sp then
    joinCap, joinPiece = sub(ARGV[19], 1, sp - 1), sub(ARGV[19], sp + 1)
  else
    joinCap = ARGV[19]
  end
end
local now, nowS = clock(ARGV[3])
local ttl = ARGV[8]
local p = call("HMGET", KEYS[PROC], "status", "lease", "killedAt", "reserved", "pid", "paused", "resumeStep", "joinGroupId", "leaseUntil")
if (p[1] ~= "running" and p[1] ~= "executing") or p[2] ~= ARGV[2] then
  return redis.error_reply("LEASE_LOST token is not the current lease")
end
if p[9] + 0 < now then
  return redis.error_reply("LEASE_LOST the lease expired at " .. p[9])
end
local m = call("HMGET", KEYS[1], "killedAt", "paused", "steps", "live", "window", "fence", "iter", "gasUsed", "maxTotalGas", "allow")
local killed = (p[3] and p[3] ~= "") or (m[1] and m[1] ~= "")
local childPaused = p[6] or "0"
if m[2] == "1" then
  childPaused = "1"
end
local status = ARGV[4]
local nChildren = ARGV[16] + 0
local W0 = C0 + CF * nChildren
if killed then
  status, nChildren = "aborted", 0
end
-- Caps: a runaway session (endless spawning, an endless loop) is killed
-- by the commit that would go over them, and a step whose cancelSession
-- rule held kills its session the same way; the other processes observe
-- the kill and are aborted lazily.
local capReason = ""
local steps = (m[3] or 0) + 1
local live = (m[4] or 1) + 0
if not killed then
  local liveAfter = live - 1 + nChildren
  if ARGV[17] ~= "" then
    capReason = ARGV[17]
  elseif ARGV[14] ~= "0" and steps > ARGV[14] + 0 then
    capReason = fmt("step cap: the session committed its step %d, at most %s are allowed (XGR_MAX_STEPS)", steps, ARGV[14])
  elseif ARGV[13] ~= "0" and liveAfter > ARGV[13] + 0 then
    capReason = fmt("live process cap: the session would have %d live processes, at most %s are allowed (XGR_MAX_LIVE)", liveAfter, ARGV[13])
  end
  local kind = "cap"
  if ARGV[17] ~= "" then
    kind = "cancel"
  elseif capReason == "" and ARGV[21] ~= "0" then
    local used, budget, by = (m[8] or 0) + ARGV[21], ARGV[22] + 0, "XGR_SESSION_GAS_CEILING"
    local permit = 0
    if m[9] and m[9] ~= "" then
      permit = m[9] + 0
    end
    if permit > 0 and (budget == 0 or permit < budget) then
      budget, by = permit, "the permit's maxTotalGas"
    end
    if budget > 0 and used > budget then
      capReason = fmt("gas budget (maxTotalGas): the session used %.0f gas (validation and execution), over its budget of %.0f (%s)", used, budget, by)
      kind = "budget"
    end
  end
  -- The owner's live process quota (lib/slots.lua): over the slots the
  -- owner granted the session (meta allow), nothing changes and the caller
  -- asks the owner for more (grant_slots) or kills the session.
  if capReason == "" and m[10] and liveAfter > m[10] + 0 then
    return redis.error_reply(fmt("QUOTA %d", liveAfter))
  end
  if capReason ~= "" then
    call("HSET", KEYS[1], "killedAt", nowS, "killReason", capReason, "killKind", kind)
    killed, status, nChildren = true, "aborted", 0
  end
end
local first, count = 0, 0
if p[4] and p[4] ~= "" then
  local a, b = string.match(p[4], "^(%d+):(%d+)$")
  first, count = a + 0, b + 0
end
for i = 1, nChildren do
  local it = ARGV[C0 + CF * (i - 1)] + 0
  if it < first or it >= first + count then
    return redis.error_reply("BAD_CHILD child iter " .. it .. " is outside the lease's reservation")
  end
end
local pid, group, step = p[5], p[8], p[7]
local root = sub(pid, 1, #pid - #ARGV[1] - 1) -- pid is "<root>:<iter>"

-- The group's join target: spawn gate and delivery.
local targetIter = ARGV[10]
local gateKill, targetOpen = false, false
if targetIter ~= "" then
  local t = call("HMGET", KEYS[8], "closed", "policy")
  targetOpen = t[1] ~= "1"
  gateKill = t[1] == "1" and t[2] == "kill"
end
-- Whether this script decides the open target's join (Joins above), and
-- the pending deliveries it applies before this one: read before anything
-- changes.
local decider, pendingJoin
local K -- the declared keys, by name (lib/declared.lua); only with joins
if joinCap ~= "" then
  K = declaredKeys()
end
if targetOpen and joinPiece ~= "" then
  decider = joinDecider(K, now, nowS, ttl, tonumber(joinCap))
  if K.has("g:" .. targetIter) and K.has("jl:" .. targetIter) then
    pendingJoin = decider.pending(targetIter)
  else
    decider.skip[targetIter] = true
  end
end
-- The joins this commit creates whose first decision it takes (their
-- targets keep their reachability): their fresh groups, by group id.
local decideFresh -- nil: none (no table on a plain step)
if joinCap ~= "" then
  for i = 1, nChildren do
    local b = C0 + CF * (i - 1)
    if ARGV[b + 8] ~= "" and find(ARGV[b + 11], " ", 1, true) then
      decideFresh = decideFresh or {}
      decideFresh[ARGV[b + 7]] = true
    end
  end
end

-- The fresh groups of the join targets this commit creates: group id ->
-- the target's first ARGV value (its child base).
local freshJoin = {}
for i = 1, nChildren do
  local b = C0 + CF * (i - 1)
  if ARGV[b + 8] ~= "" then
    freshJoin[ARGV[b + 7]] = b
  end
end

-- Whether the group's target's decision reaches declared keys only, read
-- before the first write: its verdict as the decisions below will reach
-- it (this commit's children in the group are members, the first
-- decisions of the joins it creates there come first: a failed one is no
-- member and delivers its failure after this commit's delivery). A close
-- with kill reaches every member (p:<m>: declared for this commit's
-- children only); an unfulfillable close reaches the target's own group
-- and its target (never declared). Either is left to a join step: the
-- delivery stays pending and nothing is claimed.
if pendingJoin then
  local r = decider.record(targetIter)
  local parent = call("HGET", KEYS[6], r[4] or "0")
  local flat, others = {}, false
  if r[2] == "kill" or parent then
    flat = call("HGETALL", KEYS[7])
    for i = 1, #flat, 2 do
      others = others or flat[i] ~= ARGV[1]
    end
  end
  if parent or others then
    local live, held, known = {}, {}, true
    for i = 1, #flat, 2 do
      if flat[i] ~= ARGV[1] then
        live[#live + 1] = {tonumber(flat[i]), flat[i + 1]}
      end
    end
    for i = 1, nChildren do
      local b = C0 + CF * (i - 1)
      local citer, cstep, cgroup = ARGV[b], ARGV[b + 1], ARGV[b + 4]
      if ARGV[b + 8] ~= "" and freshJoin[cgroup] then
        known = false -- a join nested in a join this commit creates
      elseif cgroup == group then
        local failed = false
        if ARGV[b + 8] ~= "" and decideFresh and decideFresh[ARGV[b + 7]] then
          local policy = ARGV[b + 11]
          local sp = find(policy, " ", 1, true)
          local fr = {"0", sub(policy, 1, sp - 1), cstep, cgroup, "", "", "", ARGV[b + 8], ARGV[b + 9], ARGV[b + 10], "{}", "{}",
            sub(policy, sp + 1)}
          local producers = {}
          for j = 1, nChildren do
            local c = C0 + CF * (j - 1)
            if ARGV[c + 4] == ARGV[b + 7] then
              producers[#producers + 1] = {tonumber(ARGV[c]), ARGV[c + 1]}
            end
          end
          failed = decider.evaluate(fr, producers, {}).verdict == "unfulfillable"
        end
        if failed then
          held[#held + 1] = {pid = root .. ":" .. citer, from = cstep, aborted = true, payload = "{}"}
        else
          live[#live + 1] = {tonumber(citer), cstep}
        end
      end
    end
    local verdict = "unknown"
    if known then
      local v = nil
      if ARGV[5] ~= "" then
        v = ARGV[5] == "1"
      end
      local pend = {}
      for _, x in ipairs(pendingJoin) do
        pend[#pend + 1] = x
      end
      pend[#pend + 1] = {pid = pid, from = step, aborted = status == "aborted", valid = v, payload = joinPiece}
      for _, x in ipairs(held) do
        pend[#pend + 1] = x
      end
      verdict = decider.evaluate(r, live, pend).verdict
    end
    if verdict ~= "open" and ((r[2] == "kill" and others) or (parent and verdict ~= "satisfied")) then
      decider.skip[targetIter], pendingJoin = true, nil
    end
  end
end

local reason = ARGV[12]
if capReason ~= "" then
  reason = capReason
elseif killed then
  reason = "killed"
end
call("HSET", KEYS[PROC], "status", status, "lastStep", step, "lastEvalValid", ARGV[5],
  "updatedAt", nowS, "lease", "", "leaseUntil", "", "worker", "", "reserved", "", "resumePlain", ARGV[11],
  "abortReason", reason)
if ARGV[18] ~= "" then
  call("HSET", KEYS[PROC], "execOutcome", ARGV[18])
end
if ARGV[20] == "1" then
  call("HSET", KEYS[PROC], "sealed", "1")
  call("HDEL", KEYS[PROC], "execRecord")
end
if not killed and #ARGV >= W0 then
  for i = W0, #ARGV, 2 do
    call("HSET", KEYS[WQ], ARGV[i], ARGV[i + 1])
  end
  if ttl ~= "0" then
    call("EXPIRE", KEYS[WQ], ttl)
  end
end
if targetIter ~= "" then
  call("HDEL", KEYS[7], ARGV[1])
  if not targetOpen and call("EXISTS", KEYS[7]) == 0 then
    -- The group is empty and its join decided: forget the group.
    call("HDEL", KEYS[6], group)
  end
end

-- The spawn gate covers the whole join scope: a nested join's target gated
-- into the closed group takes its producers (its fresh group, named by the
-- target's iter) with it, so no half of a join is created. Child i's values
-- are ARGV[C + 0 .. C + 11] with C = 23 + 12 (i - 1): iter, step, wakeIn,
-- plain, group, reserve, bypass, fromGroup, expect, requireWhen, k, policy
-- (and reach).
local gatedGroup = {}
if gateKill then
  gatedGroup[group] = true
  for i = 1, nChildren do
    local b = C0 + CF * (i - 1)
    if ARGV[b + 8] ~= "" and ARGV[b + 4] == group then
      gatedGroup[ARGV[b]] = true
    end
  end
end

-- Claims: how many running slots the window leaves (the committing
-- process frees its own). A child is claimed here only when no join
-- decision that this commit causes can gate it, since delivery and
-- decision come before the spawn and dispatch gates: nothing is claimed
-- when the process delivers to an open join target (the delivery may close
-- the join with kill, or show it can no longer be met, and either ends the
-- group's waiting members, these children among them), and no producer of
-- a join this commit creates (the join's first decision comes first). Such
-- children wait in the due set; the driver runs the join steps, then
-- claims what the gates let run. When this script takes those decisions
-- itself (Joins above), the children they leave waiting are claimed after
-- them (deferred).
local claimLease = ARGV[15] + 0
local loopLease, deferClaims = claimLease, claimLease > 0 and decideFresh ~= nil
if targetOpen then
  -- A delivery left pending for a join step may still close the group's
  -- join with kill (its waiting members, a created join target among
  -- them, and that target's producers under its own kill policy, end):
  -- then nothing is claimed, the created joins' producers included.
  loopLease, deferClaims = 0, claimLease > 0 and pendingJoin ~= nil
end
local free = -1 -- no window
if (loopLease > 0 or deferClaims) and m[5] and m[5] ~= "" and m[5] ~= "0" then
  -- Join-creating steps bypass the window, so more may be running than it
  -- allows: then there is no room (0), never the -1 of no window.
  free = math.max(tonumber(m[5]) - call("ZCOUNT", KEYS[2], nowS, "+inf") + 1, 0)
end
local fence, iterNext -- read when a child is claimed
-- nextLease takes the session's next fencing token for a child claimed
-- here and reserves its child iters: returns the token and the first
-- reserved iter ("0" when it reserves none).
local function nextLease(reserve)
  if not fence then
    fence, iterNext = (m[6] or 0) + 0, (m[7] or 0) + 0
  end
  fence = fence + 1
  local firstChild = "0"
  if reserve ~= "0" then
    firstChild = int(iterNext + 1)
    iterNext = iterNext + reserve
  end
  return int(fence), firstChild
end
local created, gated, claims, runArgs, fresh = {}, 0, {}, {}, nil
local deferred -- children the join decisions may leave to claim
if deferClaims then
  deferred = {}
end
local untilS = int(now + claimLease)
local threadHead -- the committing process's threadHeadPid, once a join target child needs it
for i = 1, nChildren do
  local b = C0 + CF * (i - 1)
  local citer, cstep, wakeIn, cgroup, expect = ARGV[b], ARGV[b + 1], ARGV[b + 2], ARGV[b + 4], ARGV[b + 8]
  if gatedGroup[cgroup] then
    gated = gated + 1
  else
    local pkey = KEYS[CHILD0 + 2 * i - 1]
    local cpid = root .. ":" .. citer
    local plain = ARGV[b + 3]
    if plain == "" then
      plain = ARGV[11]
    end
    local ready, wake = wakeIn == "0" or tonumber(wakeIn) <= 0, nowS
    if wakeIn ~= "0" then
      wake = int(now + tonumber(wakeIn))
    end
    if expect ~= "" then
      -- A join target: never due by time; it waits for its join.
      local policy, reach = ARGV[b + 11], ""
      local sp = find(policy, " ", 1, true)
      if sp then
        policy, reach = sub(policy, 1, sp - 1), sub(policy, sp + 1)
      end
      -- Its thread is the committing process's (read only here: a plain
      -- step does not need it).
      threadHead = threadHead or call("HGET", KEYS[PROC], "threadHeadPid") or pid
      call("HSET", pkey, "pid", cpid, "parentPid", pid, "threadHeadPid", threadHead, "status", "waiting",
        "paused", childPaused, "resumeStep", cstep,
        "nextWakeAt", wake, "resumePlain", plain, "joinGroupId", cgroup, "createdAt", nowS, "updatedAt", nowS,
        "target", "1", "joinFromGroupId", ARGV[b + 7], "expect", expect,
        "requireWhen", ARGV[b + 9], "k", ARGV[b + 10], "policy", policy,
        "inbox", "{}", "fromSeen", "{}", "fail", "{}", "closed", "0", "closedAt", "")
      if reach ~= "" then
        call("HSET", pkey, "reach", reach)
      end
      call("HSET", KEYS[6], ARGV[b + 7], citer)
      if decideFresh and decideFresh[ARGV[b + 7]] then
        fresh = fresh or {}
        fresh[#fresh + 1] = citer
      end
    elseif loopLease > 0 and ready and not freshJoin[cgroup] and childPaused ~= "1" and (free ~= 0 or ARGV[b + 6] == "1") then
      -- Ready now: created running, under a lease of its own.
      local reserve = ARGV[b + 5]
      local fenceS, firstChild = nextLease(reserve)
      call("HSET", pkey, "status", "running", "lease", fenceS, "leaseUntil", untilS, "reserved", firstChild .. ":" .. reserve,
        "worker", ARGV[7], "updatedAt", nowS, "resumePlain", plain, "pid", cpid, "paused", childPaused,
        "resumeStep", cstep, "joinGroupId", cgroup, "threadHeadPid", cpid, "parentPid", pid, "nextWakeAt", wake,
        "createdAt", nowS)
      runArgs[#runArgs + 1] = untilS
      runArgs[#runArgs + 1] = citer
      claims[#claims + 1] = {citer, fenceS, firstChild, cgroup}
      if free > 0 then
        free = free - 1
      end
    else
      call("HSET", pkey, "status", "waiting", "updatedAt", nowS, "resumePlain", plain, "pid", cpid,
        "paused", childPaused, "resumeStep", cstep, "joinGroupId", cgroup, "threadHeadPid", cpid, "parentPid", pid,
        "nextWakeAt", wake, "createdAt", nowS)
      if childPaused ~= "1" then
        call("ZADD", KEYS[3], wake, citer)
        if deferClaims and ready and (not freshJoin[cgroup] and pendingJoin ~= nil or decideFresh and decideFresh[cgroup]) then
          deferred[#deferred + 1] = i
        end
      end
    end
    if cgroup ~= group or targetIter ~= "" then
      call("HSET", KEYS[CHILD0 + 2 * i], citer, cstep)
    end
    created[#created + 1] = cpid
  end
end
live = live - 1 + #created
local valid -- of this process's delivery
if ARGV[5] ~= "" then
  valid = ARGV[5] == "1"
end
if targetOpen and not pendingJoin then
  -- The delivery is left to a join step; pushed before any failure of a
  -- join this commit creates and decides unfulfillable.
  local v = valid
  if v == nil then
    v = cjson.null
  end
  if joinPiece ~= "" then
    -- Canonical: a later decision in a script may take it into an inbox.
    call("RPUSH", KEYS[9], cjson.encode({pid = pid, from = step, aborted = status == "aborted", valid = v, payload = joinPiece, canon = true}))
  else
    call("RPUSH", KEYS[9], cjson.encode({pid = pid, from = step, aborted = status == "aborted", valid = v, payload = ARGV[11]}))
  end
  call("ZADD", KEYS[10], "NX", nowS, targetIter)
end
if fresh then
  -- The first decision of each join this commit created, as its join step
  -- would take it right after the commit.
  if not decider then
    decider = joinDecider(K, now, nowS, ttl, tonumber(joinCap))
  end
  if pendingJoin then
    decider.hold = targetIter
  end
  for _, t in ipairs(fresh) do
    decider.decide(t, {})
  end
end
if pendingJoin then
  -- The join step, here: the pending deliveries, then this one, then the
  -- failures of joins just created and found unfulfillable.
  pendingJoin[#pendingJoin + 1] = {pid = pid, from = step, aborted = status == "aborted", valid = valid, payload = joinPiece}
  for _, x in ipairs(decider.held) do
    pendingJoin[#pendingJoin + 1] = x
  end
  decider.hold = nil
  decider.decide(targetIter, pendingJoin)
end
if decider then
  live = live - decider.aborted
  -- The children they left waiting that may run now are claimed, as the
  -- claim above would have claimed them, and as claim.lua would: not one
  -- whose group's target a decision here closed with kill (the dispatch
  -- gate; the kill's join step aborts it).
  for _, i in ipairs(deferred or {}) do
    local b = C0 + CF * (i - 1)
    local pkey, citer = KEYS[CHILD0 + 2 * i - 1], ARGV[b]
    local open = call("HGET", pkey, "status") == "waiting"
    if open then
      -- The group's target is the commit's own (KEYS[8]) or one it
      -- created (declared); any other is left to claim.lua.
      local gt = call("HGET", KEYS[6], ARGV[b + 4])
      if gt then
        local gkey = K.has("p:" .. gt)
        if gkey then
          local g = call("HMGET", gkey, "closed", "policy")
          open = not (g[1] == "1" and g[2] == "kill")
        else
          open = false
        end
      end
    end
    if (free ~= 0 or ARGV[b + 6] == "1") and open then
      local reserve = ARGV[b + 5]
      local fenceS, firstChild = nextLease(reserve)
      call("HSET", pkey, "status", "running", "lease", fenceS, "leaseUntil", untilS, "worker", ARGV[7],
        "reserved", firstChild .. ":" .. reserve)
      call("ZREM", KEYS[3], citer)
      runArgs[#runArgs + 1] = untilS
      runArgs[#runArgs + 1] = citer
      claims[#claims + 1] = {citer, fenceS, firstChild, ARGV[b + 4]}
      if free > 0 then
        free = free - 1
      end
    end
  end
end
if #runArgs > 0 then
  call("ZADD", KEYS[2], "0", ARGV[1], unpack(runArgs))
  call("HSET", KEYS[1], "steps", int(steps), "live", int(live), "fence", int(fence), "iter", int(iterNext))
else
  call("ZREM", KEYS[2], ARGV[1])
  call("HSET", KEYS[1], "steps", int(steps), "live", int(live))
end

if ARGV[21] ~= "0" then
  call("HINCRBY", KEYS[1], "gasUsed", ARGV[21])
end
if not killed and status == "aborted" then
  call("HINCRBY", KEYS[1], "failed", 1)
elseif status == "done" and ARGV[5] == "0" and ARGV[16] == "0" and targetIter == "" then
  call("HINCRBY", KEYS[1], "invalidEnds", 1)
end

local deliveredTo = ""
if targetOpen and not pendingJoin then
  deliveredTo = targetIter
end

if reason == "" then
  call("XADD", KEYS[4], "MAXLEN", "~", ARGV[9], "*", "pid", pid, "step", step, "valid", ARGV[5], "status", status,
    "at", nowS, "worker", ARGV[7], "digest", ARGV[6], "children", concat(created, ","), "gas", ARGV[21])
else
  call("XADD", KEYS[4], "MAXLEN", "~", ARGV[9], "*", "pid", pid, "step", step, "valid", ARGV[5], "status", status,
    "at", nowS, "worker", ARGV[7], "digest", ARGV[6], "children", concat(created, ","), "abortReason", reason, "gas", ARGV[21])
end
if ttl ~= "0" then
  call("EXPIRE", KEYS[PROC], ttl)
end
if live <= 0 then
  call("HSET", KEYS[1], "status", "finished", "finishedAt", nowS)
  if ttl ~= "0" then
    for _, k in ipairs({1, 2, 3, 4, 6, 10, WQ}) do
      call("EXPIRE", KEYS[k], ttl)
    end
  end
end
local result = "committed"
if killed then
  result = "killed"
end
local joins = "" -- none decided
if decider and #decider.joins > 0 then
  joins = decider.joins
end
if #claims == 0 then
  return {result, live, deliveredTo, gated, capReason, joins}
end
-- Each claimed child's group target is read as claim.lua reads it, after
-- every child exists (a join this commit created maps its group; a
-- decided group this commit emptied is forgotten).
local out = {result, live, deliveredTo, gated, capReason, joins}
for _, c in ipairs(claims) do
  local claim = c[1] .. " " .. c[2] .. " " .. c[3]
  if c[4] ~= "0" then
    local target = call("HGET", KEYS[6], c[4])
    if target then
      claim = claim .. " " .. target
    end
  end
  out[#out + 1] = claim
end
return out
