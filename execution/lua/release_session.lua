-- release_session: undo an execution's session reservation (reserve_session)
-- when its second reservation, reserve_owner_day, refused: the execution
-- is refused and sends nothing, so its gas and value leave the session's
-- totals. Idempotent: a key without a reservation changes nothing.
-- Releasing is safe against a concurrent retry of the same key: the
-- owner-day totals of a day only grow, so a key the owner's day refused
-- once is refused on every retry that reads the same recorded day; no
-- retry can be sending under the reservation released here.
--
-- KEYS[1] xgr:{<owner>:<session>}:execgas  (hash, see reserve_session)
-- ARGV[1] the execution's idempotency key
--
-- Returns {"released", gas, value} or {"absent", "0", "0"}.
-- Invariant: as reserve_session's; total and value never go below 0.
local key = ARGV[1]
local kf, vf, df = "k:" .. key, "v:" .. key, "d:" .. key
local h = redis.call("HMGET", KEYS[1], "total", "value", kf, vf)
if not h[3] then
  return {"absent", "0", "0"}
end
local total = tonumber(h[1] or "0") - tonumber(h[3])
if total < 0 then
  total = 0
end
local wei = h[4] or "0"
redis.call("HSET", KEYS[1], "total", int(total), "value", dec_sub(h[2] or "0", wei))
redis.call("HDEL", KEYS[1], kf, vf, df)
return {"released", h[3], wei}
