-- reserve_gas: reserve an execution's gas limit against its session's gas
-- budget, once per idempotency key. A key that holds a reservation gets it
-- back unchanged (a retried Send never reserves twice); a new key is
-- reserved only if the session's reserved total stays within the budget.
--
-- KEYS[1] xgr:{<owner>:<session>}:execgas  (hash; the session's hash tag,
--         so it lives in the slot of the session's joinstore keys)
-- ARGV[1] the execution's idempotency key
-- ARGV[2] gas to reserve (decimal, 1 .. 2^53-1)
-- ARGV[3] the session's budget (decimal, 0 .. 2^53-1)
-- ARGV[4] the hash's time to live in ms (decimal; "0" keeps it)
--
-- Returns {"exists", reserved for the key, total}, {"reserved", gas, total}
-- or {"over", gas, total} (nothing written; total is what the session has
-- reserved so far). Fields: "total" and "k:<key>" (the key's gas).
-- Invariant: total equals the sum of the k:<key> fields and never exceeds
-- the budget a reservation was checked against; a key is reserved at most
-- once.
local field = "k:" .. ARGV[1]
local total = tonumber(redis.call("HGET", KEYS[1], "total") or "0")
local held = redis.call("HGET", KEYS[1], field)
if held then
  return {"exists", held, int(total)}
end
local gas = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
if total + gas > budget then
  return {"over", ARGV[2], int(total)}
end
total = total + gas
redis.call("HSET", KEYS[1], "total", int(total), field, ARGV[2])
if ARGV[4] ~= "0" then
  redis.call("PEXPIRE", KEYS[1], ARGV[4])
end
return {"reserved", ARGV[2], int(total)}
