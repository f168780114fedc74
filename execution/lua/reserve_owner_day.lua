-- reserve_owner_day: reserve an execution's gas limit, value and
-- worst-case spend (gas limit × the fee cap + value) against its owner's
-- limits for one UTC day, once per idempotency key. The second of an
-- execution's two reservations (after reserve_session, whose recorded day
-- picks KEYS[1]): the owner's keys have a hash tag of their own,
-- {<owner>}, as every session of the owner counts here, and a script may
-- touch one Cluster slot only. A refusal here is followed by
-- release_session. A key that holds a reservation gets it back unchanged.
--
-- KEYS[1] xgr:{<owner>}:execday:<YYYY-MM-DD>  (hash)
-- ARGV[1] the execution's idempotency key
-- ARGV[2] gas (decimal, 1 .. 2^53-1)
-- ARGV[3] value (wei, canonical decimal; "0" for none)
-- ARGV[4] spend (wei, canonical decimal)
-- ARGV[5] the owner's gas per day (decimal, 0 .. 2^53-1)
-- ARGV[6] the owner's value per day (wei, canonical decimal)
-- ARGV[7] the owner's spend per day (wei, canonical decimal; "" for no cap)
-- ARGV[8] the hash's time to live in ms (decimal, > 0: a few days)
--
-- Returns {status, gas total, value total, spend total}: status "exists"
-- (nothing changed), "reserved", "over-gas", "over-value" or
-- "over-spend" (nothing written; the totals are what the owner has
-- reserved that day so far).
-- Fields: "gas", "value", "spend" (the day's totals) and "k:<key>"
-- ("<gas> <value> <spend>" of each execution).
-- Invariant: each total is the sum of its part of the k: fields and never
-- exceeds the limit a reservation was checked against; a key is reserved
-- at most once; totals only grow (nothing is released from a day).
local kf = "k:" .. ARGV[1]
local h = redis.call("HMGET", KEYS[1], "gas", "value", "spend", kf)
local gas, value, spend = tonumber(h[1] or "0"), h[2] or "0", h[3] or "0"
if h[4] then
  return {"exists", int(gas), value, spend}
end
if gas + tonumber(ARGV[2]) > tonumber(ARGV[5]) then
  return {"over-gas", int(gas), value, spend}
end
local newValue = dec_add(value, ARGV[3])
if ARGV[3] ~= "0" and dec_cmp(newValue, ARGV[6]) > 0 then
  return {"over-value", int(gas), value, spend}
end
local newSpend = dec_add(spend, ARGV[4])
if ARGV[7] ~= "" and dec_cmp(newSpend, ARGV[7]) > 0 then
  return {"over-spend", int(gas), value, spend}
end
gas = gas + tonumber(ARGV[2])
redis.call("HSET", KEYS[1], "gas", int(gas), "value", newValue, "spend", newSpend, kf, ARGV[2] .. " " .. ARGV[3] .. " " .. ARGV[4])
redis.call("PEXPIRE", KEYS[1], ARGV[8])
return {"reserved", int(gas), newValue, newSpend}
