-- join_decide: the join step of a target inside the transition that
-- delivers to it (commit_step), so that a join-closing step costs one round
-- trip: the pending deliveries are applied in order, the join decided after
-- each (DESIGN.md "Delivery", "Decision"), and the decision applied as
-- join_apply applies one (close, merge, promote; or close, abort and fail
-- into the parent group's target, decided there too; kill of the waiting
-- members under policy kill). reactor.DecideJoin is the same decision in Go
-- (the join step's, for the cases this one leaves to it);
-- TestInlineJoinMatchesDecideJoin holds the two equal over generated
-- states on a single Redis and a 3-master Cluster.
--
-- joinDecider(K, now, nowS, ttl, cap) returns the decider of one session:
-- K is the script's declared keys (lib/declared.lua): every key is taken
-- from KEYS by name (meta, due, jpend, targets, and per target t p:<t>,
-- g:<t>, jq:<t>, jl:<t>; p:<m> of a member a kill aborts; g:<P> of the
-- group P a target leaves); reaching one that is not declared is an error
-- (the caller checks, with d.evaluate before its first write, that a
-- decision it takes here touches declared keys only). cap is the payload
-- cap (bytes) a merged payload must keep to.
--   d.pending(t): the pending deliveries of target t when its join can be
--     decided here — t is not in d.skip, no join lock is held on it (a join
--     step's holder applies every delivery before it lets go), its record
--     keeps its reachability (field reach) and every pending delivery that
--     may enter the inbox carries a canonical payload (canon) — else nil.
--   d.decide(t, pending): apply pending (a list of {pid, from, aborted,
--     valid (true, false or nil), payload}) to open target t and decide
--     (with none: the first decision of a target just created).
--   d.evaluate(r, live, pending): that decision, read-only: r is the
--     target's record (d.record(t), or one built from what creates it),
--     live its group's live members ({iter, step}, iter order); returns
--     {verdict = open | satisfied | unfulfillable (a satisfied join whose
--     merged payload is over the cap is unfulfillable), ...}.
--   d.skip: targets (iter strings) whose decision is left to a join step.
--   d.hold: a target whose failures from targets this decider aborts are
--     kept in d.held instead of delivered (the commit delivers its own
--     delivery to it first, then those).
--   d.aborted: processes this decider aborted (the session's live count
--     drops by as many); d.joins: one entry per decided target, in order:
--     {target, verdict, {pid, from, result ...}, {killed iters},
--     {follow-up target, kill (1|0) ...}}.
-- Payload numbers stay exact: payloads are never decoded here. An inbox
-- piece is the canonical payload text (Go's encoding, joinstore.Commit
-- makes it) with the meta members _from and _when appended; a merged
-- payload is spliced from the pieces' members in `from` order, later
-- overwriting earlier, meta dropped, keys sorted bytewise as Go's encoder
-- sorts them: byte for byte what reactor.MarshalPayload(reactor.Merge(..))
-- gives.
-- Invariant: every key a decision reaches is one of the script's KEYS.
local function joinDecider(K, now, nowS, ttl, cap)
  -- depth: how many cascades into a parent target this decider is inside;
  -- past maxDepth a failure is left pending for the parent's join step, so
  -- that one script's work stays bounded however deep the joins nest.
  local d = {aborted = 0, joins = {}, held = {}, depth = 0, skip = {}}
  local recs = {} -- d.record's reads, by target iter (string)
  local maxDepth = 16
  local metaKey, dueKey, jpendKey, targetsKey = K.key("meta"), K.key("due"), K.key("jpend"), K.key("targets")

  -- JSON text, scanned without decoding values.
  local function skipString(s, i) -- s[i] is '"'; returns the index after the closing quote
    local j = i + 1
    while true do
      local a = string.find(s, '["\\]', j)
      if not a then
        error("join_decide: unterminated JSON string in " .. s)
      end
      if string.byte(s, a) == 34 then
        return a + 1
      end
      j = a + 2
    end
  end
  local function skipValue(s, i)
    local c = string.sub(s, i, i)
    if c == '"' then
      return skipString(s, i)
    end
    if c == "{" or c == "[" then
      local depth, j = 0, i
      while true do
        local a = string.find(s, '[%[%]{}"]', j)
        if not a then
          error("join_decide: unbalanced JSON value in " .. s)
        end
        local x = string.sub(s, a, a)
        if x == '"' then
          j = skipString(s, a)
        else
          if x == "{" or x == "[" then
            depth = depth + 1
          else
            depth = depth - 1
          end
          j = a + 1
          if depth == 0 then
            return j
          end
        end
      end
    end
    return string.find(s, "[,}%]%s]", i) -- a number or a literal
  end
  -- members of a JSON object text, in text order: {raw key, raw value}
  local function members(s)
    local out = {}
    if not s or s == "" then
      return out
    end
    local i = string.find(s, "%S", string.find(s, "{", 1, true) + 1)
    if string.byte(s, i) == 125 then
      return out
    end
    while true do
      local k = skipString(s, i)
      local v = string.find(s, "%S", string.find(s, ":", k, true) + 1)
      local e = skipValue(s, v)
      out[#out + 1] = {string.sub(s, i, k - 1), string.sub(s, v, e - 1)}
      i = string.find(s, "%S", e)
      if string.byte(s, i) == 125 then
        return out
      end
      i = string.find(s, "%S", i + 1)
    end
  end
  local function utf8(cp)
    if cp < 0x80 then
      return string.char(cp)
    elseif cp < 0x800 then
      return string.char(0xC0 + math.floor(cp / 0x40), 0x80 + cp % 0x40)
    elseif cp < 0x10000 then
      return string.char(0xE0 + math.floor(cp / 0x1000), 0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
    end
    return string.char(0xF0 + math.floor(cp / 0x40000), 0x80 + math.floor(cp / 0x1000) % 0x40,
      0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
  end
  local escapes = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
  -- the string a raw JSON string (quotes included) stands for
  local function unquote(raw)
    local s = string.sub(raw, 2, -2)
    if not string.find(s, "\\", 1, true) then
      return s
    end
    local out, i = {}, 1
    while true do
      local a = string.find(s, "\\", i, true)
      if not a then
        out[#out + 1] = string.sub(s, i)
        return table.concat(out)
      end
      out[#out + 1] = string.sub(s, i, a - 1)
      local c = string.sub(s, a + 1, a + 1)
      if c == "u" then
        local cp = tonumber(string.sub(s, a + 2, a + 5), 16)
        i = a + 6
        if cp >= 0xD800 and cp < 0xDC00 and string.sub(s, i, i + 1) == "\\u" then
          local lo = tonumber(string.sub(s, i + 2, i + 5), 16)
          if lo and lo >= 0xDC00 and lo < 0xE000 then
            cp, i = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00), i + 6
          end
        end
        if cp >= 0xD800 and cp < 0xE000 then
          cp = 0xFFFD -- a lone surrogate, as Go's decoder reads it
        end
        out[#out + 1] = utf8(cp)
      else
        out[#out + 1] = escapes[c] or c
        i = a + 2
      end
    end
  end
  -- bytewise order (Lua's < follows the server's collation locale)
  local function before(a, b)
    for i = 1, math.min(#a, #b) do
      local x, y = string.byte(a, i), string.byte(b, i)
      if x ~= y then
        return x < y
      end
    end
    return #a < #b
  end
  local function merge(from, inbox)
    local byKey, keys = {}, {}
    for _, node in ipairs(from) do
      local piece = inbox[node]
      if piece then
        for _, kv in ipairs(members(piece)) do
          local k = unquote(kv[1])
          if k ~= "_from" and k ~= "_when" then
            if not byKey[k] then
              keys[#keys + 1] = k
            end
            byKey[k] = kv
          end
        end
      end
    end
    table.sort(keys, before)
    local parts = {}
    for i, k in ipairs(keys) do
      parts[i] = byKey[k][1] .. ":" .. byKey[k][2]
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  local function piece(payload, from, valid)
    local when = "invalid"
    if valid then
      when = "valid"
    end
    local meta = '"_from":' .. cjson.encode(from) .. ',"_when":"' .. when .. '"}'
    if payload == "{}" then
      return "{" .. meta
    end
    return string.sub(payload, 1, -2) .. "," .. meta
  end

  local function abort(key, iter, reason)
    recs[tostring(iter)] = nil
    redis.call("HSET", key, "status", "aborted", "abortReason", reason, "updatedAt", nowS)
    redis.call("ZREM", dueKey, iter)
    if ttl ~= "0" then
      redis.call("EXPIRE", key, ttl)
    end
    d.aborted = d.aborted + 1
  end

  function d.pending(t)
    if d.skip[tostring(t)] or redis.call("EXISTS", K.key("jl:" .. t)) == 1 then
      return nil
    end
    local reach = d.record(t)[13]
    if not reach or reach == "" then
      return nil
    end
    local out = {}
    for _, e in ipairs(redis.call("LRANGE", K.key("jq:" .. t), 0, -1)) do
      local x = cjson.decode(e)
      if x.aborted ~= true and x.canon ~= true then
        return nil
      end
      local valid = x.valid
      if valid == cjson.null then
        valid = nil
      end
      out[#out + 1] = {pid = x.pid, from = x.from, aborted = x.aborted == true, valid = valid, payload = x.payload}
    end
    return out
  end

  -- d.record(t): target t's record, the fields d.evaluate reads; read
  -- once and kept until the decider writes the record (d.decide of t, an
  -- abort or a kill's close of t), so that d.pending, the commit's
  -- read-only pass and d.decide of one target cost one HMGET.
  function d.record(t)
    local r = recs[tostring(t)]
    if not r then
      r = redis.call("HMGET", K.key("p:" .. t), "closed", "policy", "resumeStep", "joinGroupId", "nextWakeAt", "paused", "pid",
        "expect", "requireWhen", "k", "inbox", "fail", "reach")
      recs[tostring(t)] = r
    end
    return r
  end
  -- d.members(t): the live members of t's group, in iter order.
  function d.members(t)
    local flat, live = redis.call("HGETALL", K.key("g:" .. t)), {}
    for i = 1, #flat, 2 do
      live[#live + 1] = {tonumber(flat[i]), flat[i + 1]}
    end
    table.sort(live, function(a, b)
      return a[1] < b[1]
    end)
    return live
  end

  function d.evaluate(r, live, pending)
    local from, when, k = cjson.decode(r[8]), cjson.decode(r[9] or "{}"), tonumber(r[10])
    local expected, reach = {}, {}
    for _, node in ipairs(from) do
      expected[node] = true
    end
    for node, list in pairs(cjson.decode(r[13])) do
      local set = {}
      if type(list) == "table" then
        for _, s in ipairs(list) do
          set[s] = true
        end
      end
      reach[node] = set
    end
    local inboxList, inbox = members(r[11] or "{}"), {}
    for _, kv in ipairs(inboxList) do
      inbox[unquote(kv[1])] = kv[2]
    end
    local fail = {}
    if r[12] and r[12] ~= "" then
      fail = cjson.decode(r[12])
    end

    local closed, verdict = false, "open"
    local function produces(node, step)
      return step == node or reach[node] and reach[node][step]
    end
    -- Per from node, once (the live members do not change while the
    -- deliveries are applied): whether a live member can produce it, and
    -- the last pending delivery whose producer can — so that each decision
    -- costs O(|from|), not a scan of the members and the later deliveries.
    local liveCan, lastCan = {}, {}
    for _, node in ipairs(from) do
      for _, m in ipairs(live) do
        if produces(node, m[2]) then
          liveCan[node] = true
          break
        end
      end
      lastCan[node] = 0
      if not liveCan[node] then
        for j = #pending, 1, -1 do
          if produces(node, pending[j].from) then
            lastCan[node] = j
            break
          end
        end
      end
    end
    -- decide after the first n pending deliveries: the producers of the
    -- later ones count as members about to run their step
    local function decide(n)
      local got, potential = 0, 0
      for _, node in ipairs(from) do
        if inbox[node] then
          got = got + 1
        else
          if liveCan[node] or lastCan[node] > n then
            potential = potential + 1
          end
        end
      end
      if got >= k then
        verdict, closed = "satisfied", true
      elseif got + potential < k then
        verdict, closed = "unfulfillable", true
      end
    end
    local function deliver(x)
      if closed then
        return "ignored_closed"
      elseif not expected[x.from] then
        return "ignored_not_expected"
      elseif inbox[x.from] then
        return "ignored_duplicate"
      elseif x.aborted then
        fail[x.from] = "aborted"
        return "failed"
      end
      local w, valid = when[x.from], x.valid == true
      if (w == "valid" and not valid) or (w == "invalid" and valid) then
        return "ignored_when"
      end
      local p = piece(x.payload, x.from, valid)
      inbox[x.from] = p
      inboxList[#inboxList + 1] = {cjson.encode(x.from), p}
      fail[x.from] = nil
      return "delivered"
    end

    local applied = {}
    if #pending == 0 then
      decide(0)
    end
    for i, x in ipairs(pending) do
      local was = closed
      local res = deliver(x)
      applied[#applied + 1] = x.pid
      applied[#applied + 1] = x.from
      applied[#applied + 1] = res
      if not was then
        decide(i)
      end
    end
    local st = {verdict = verdict, applied = applied, inboxList = inboxList, fail = fail, reason = "unfulfillable"}
    if verdict == "satisfied" then
      st.merged = merge(from, inbox)
      if #st.merged > cap then
        -- Satisfied, but the merged payload is over the cap: the join
        -- closes with its inbox and the target aborts with the reason.
        st.verdict = "unfulfillable"
        st.reason = string.format("the join's merged payload is %d bytes, at most %d are allowed (XGR_MAX_PAYLOAD)", #st.merged, cap)
      end
    end
    return st
  end

  function d.decide(t, pending)
    local key, gkey = K.key("p:" .. t), K.key("g:" .. t)
    local r, live = d.record(t), d.members(t)
    recs[tostring(t)] = nil -- written below
    local st = d.evaluate(r, live, pending)
    local verdict, applied = st.verdict, st.applied

    local parts = {}
    for i, kv in ipairs(st.inboxList) do
      parts[i] = kv[1] .. ":" .. kv[2]
    end
    local failText = "{}"
    if next(st.fail) then
      failText = cjson.encode(st.fail)
    end
    redis.call("HSET", key, "inbox", "{" .. table.concat(parts, ",") .. "}", "fail", failText, "updatedAt", nowS)
    redis.call("DEL", K.key("jq:" .. t))
    redis.call("ZREM", jpendKey, t)

    local killed, follow, cascade = {}, {}, nil
    if verdict ~= "open" then
      redis.call("HSET", key, "closed", "1", "closedAt", nowS)
      if verdict == "satisfied" then
        redis.call("HSET", key, "resumePlain", st.merged)
        if r[6] ~= "1" then
          redis.call("ZADD", dueKey, int(math.max(tonumber(r[5]) or 0, now)), t)
        end
      else
        -- The target aborts; as a finished process of its own group P it
        -- fails its step at P's target (cascade, after this target's kills).
        -- Only a group with a join target keeps its members.
        abort(key, t, st.reason)
        redis.call("HINCRBY", metaKey, "unfulfillable", 1)
        local group = r[4] or "0"
        local parent = redis.call("HGET", targetsKey, group)
        if parent then
          local pgkey = K.key("g:" .. group)
          redis.call("HDEL", pgkey, t)
          if redis.call("HGET", K.key("p:" .. parent), "closed") ~= "1" then
            cascade = {parent, {pid = r[7], from = r[3], aborted = true, payload = "{}"}}
          elseif redis.call("EXISTS", pgkey) == 0 then
            redis.call("HDEL", targetsKey, group)
          end
        end
      end
      if r[2] == "kill" then
        -- Every waiting member is aborted at once; running ones may finish.
        for _, m in ipairs(live) do
          local mkey = K.key("p:" .. m[1])
          local s = redis.call("HMGET", mkey, "status", "target", "closed", "policy")
          if s[1] == "waiting" then
            abort(mkey, m[1], "join-kill")
            redis.call("HDEL", gkey, m[1])
            killed[#killed + 1] = m[1]
            if s[2] == "1" and s[3] ~= "1" then
              redis.call("HSET", mkey, "closed", "1", "closedAt", nowS)
              if s[4] == "kill" then
                -- its own group's waiting members go too: a join step's
                follow[#follow + 1] = int(m[1])
                follow[#follow + 1] = "1"
              end
            end
          end
        end
      end
      if redis.call("EXISTS", gkey) == 0 then
        -- The group is empty and its join decided: forget the group.
        redis.call("HDEL", targetsKey, t)
      end
    end
    local entry = {t, verdict, applied, killed, follow}
    d.joins[#d.joins + 1] = entry
    if cascade then
      local parent, x = cascade[1], cascade[2]
      local more
      if parent == d.hold then
        d.held[#d.held + 1] = x
      elseif d.depth < maxDepth then
        more = d.pending(parent)
      end
      if parent == d.hold then
        -- delivered after the commit's own delivery
      elseif more then
        more[#more + 1] = x
        d.depth = d.depth + 1
        d.decide(parent, more)
        d.depth = d.depth - 1
      else
        redis.call("RPUSH", K.key("jq:" .. parent), cjson.encode({pid = x.pid, from = x.from, aborted = true, valid = cjson.null, payload = "{}"}))
        redis.call("ZADD", jpendKey, "NX", nowS, parent)
        follow[#follow + 1] = parent
        follow[#follow + 1] = "0"
      end
    end
  end

  return d
end
