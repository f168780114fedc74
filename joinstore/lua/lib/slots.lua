-- slots: an owner's live process slots (docs/operating.md "Tenancy"). Not
-- a transition itself; alloc_root (a new session's first slots) and
-- grant_slots (more for a running session) both count with it.
--
-- The owner's slots hash (xgr:{own:O}:slots) holds, per root pid, the
-- slots granted to that session, and under "n" their sum. A session spends
-- its slots itself: commit_step compares its live processes with the
-- meta field allow (its grant) under the session's own hash tag, and asks
-- for more (QUOTA) when a commit would go over. So the owner's count is an
-- upper bound of its live processes, kept in one slot of a cluster.
--
-- slotsReclaim(slots, roots, expire) gives back the slots of the owner's
-- sessions that finished (in the expire zset) or are gone (no longer in
-- the roots zset) and returns the sum left.
-- slotsGrant(slots, roots, expire, root, need, quota, chunk) grants root
-- at least need slots (chunk when the quota leaves room; quota 0 = no
-- quota) and returns the grant and the sum after it, or nil and the sum
-- when even need would go over the quota.
-- Invariant: with a quota, "n" never goes over it by a grant; "n" is the
-- sum of the per-session grants.
local function slotsReclaim(slots, roots, expire)
  local flat = redis.call("HGETALL", slots)
  local back = 0
  for i = 1, #flat, 2 do
    local f = flat[i]
    if f ~= "n" and (redis.call("ZSCORE", expire, f) or not redis.call("ZSCORE", roots, f)) then
      back = back + tonumber(flat[i + 1])
      redis.call("HDEL", slots, f)
    end
  end
  if back > 0 then
    return redis.call("HINCRBY", slots, "n", -back)
  end
  return tonumber(redis.call("HGET", slots, "n") or "0")
end

local function slotsGrant(slots, roots, expire, root, need, quota, chunk)
  local used = tonumber(redis.call("HGET", slots, "n") or "0")
  if quota > 0 and used + need > quota then
    used = slotsReclaim(slots, roots, expire)
    if used + need > quota then
      return nil, used
    end
  end
  local want = need
  if chunk > want then
    want = chunk
  end
  if quota > 0 and used + want > quota then
    want = quota - used
  end
  redis.call("HINCRBY", slots, root, want)
  return want, redis.call("HINCRBY", slots, "n", want)
end
