-- reserve_session: reserve an execution's gas limit and value against its
-- session's gas budget and value cap, once per idempotency key. A key that
-- holds a reservation gets it back unchanged (a retried Send never
-- reserves twice); a new key is reserved only if the session's totals stay
-- within both limits. The first of the two reservations of an execution
-- (this one, then reserve_owner_day under the owner's tag; a script may
-- touch only one Cluster slot): the day recorded here pins the owner-day
-- key a retry reserves in, so a retry after midnight counts in the day the
-- first try counted in. If the owner-day reservation refuses,
-- release_session undoes this one.
--
-- KEYS[1] xgr:{<owner>:<session>}:execgas  (hash; the session's hash tag,
--         so it lives in the slot of the session's joinstore keys)
-- ARGV[1] the execution's idempotency key
-- ARGV[2] gas to reserve (decimal, 1 .. 2^53-1)
-- ARGV[3] the session's gas budget (decimal, 0 .. 2^53-1)
-- ARGV[4] value to reserve (wei, canonical decimal; "0" for none)
-- ARGV[5] the session's value cap (wei, canonical decimal)
-- ARGV[6] the day (UTC, YYYY-MM-DD) a new reservation is counted in
-- ARGV[7] the hash's time to live in ms (decimal; "0" keeps it)
--
-- Returns {status, gas, total gas, value, total value, day}: status
-- "exists" (the key's earlier reservation, nothing changed), "reserved",
-- "over-gas" or "over-value" (nothing written; gas and value are what did
-- not fit, the totals what the session has reserved so far).
-- Fields: "total" (gas), "value" (wei), and per key "k:<key>" (gas),
-- "v:<key>" (wei, absent for 0) and "d:<key>" (its day).
-- Invariant: total and value are the sums of the k: and v: fields and
-- never exceed the limits a reservation was checked against; a key is
-- reserved at most once (until release_session removes it).
local key = ARGV[1]
local kf, vf, df = "k:" .. key, "v:" .. key, "d:" .. key
local h = redis.call("HMGET", KEYS[1], "total", "value", kf, vf, df)
local total, value = tonumber(h[1] or "0"), h[2] or "0"
if h[3] then
  return {"exists", h[3], int(total), h[4] or "0", value, h[5] or ARGV[6]}
end
local gas, wei = tonumber(ARGV[2]), ARGV[4]
if total + gas > tonumber(ARGV[3]) then
  return {"over-gas", ARGV[2], int(total), wei, value, ARGV[6]}
end
local newValue = value
if wei ~= "0" then
  newValue = dec_add(value, wei)
  if dec_cmp(newValue, ARGV[5]) > 0 then
    return {"over-value", ARGV[2], int(total), wei, value, ARGV[6]}
  end
end
total = total + gas
if wei ~= "0" then
  redis.call("HSET", KEYS[1], "total", int(total), kf, ARGV[2], df, ARGV[6], "value", newValue, vf, wei)
else
  redis.call("HSET", KEYS[1], "total", int(total), kf, ARGV[2], df, ARGV[6])
end
if ARGV[7] ~= "0" then
  redis.call("PEXPIRE", KEYS[1], ARGV[7])
end
return {"reserved", ARGV[2], int(total), wei, newValue, ARGV[6]}
