-- sync_nonce: align the sender's next nonce with the chain. The first call
-- for a sender sets it to the chain's pending nonce (anyone may do that);
-- later the lease holder raises it when the chain is ahead (the key was
-- used outside xgr). It is never lowered: every nonce below it belongs to a
-- key's record, and a lower nonce would be signed twice.
--
-- KEYS[1] xgr:txm:{T}:sender
-- ARGV[1] the chain's pending nonce for the sender  ARGV[2] lease token
-- ("" for the first call; "*" for a replica's first reservation, which
-- may raise without the lease: a raise to the chain's pending nonce is
-- monotonic and covers only nonces the chain has used, so any replica may
-- make it before it reserves)  ARGV[3] now (ms; "" = the server clock)
--
-- Returns {next, "init" | "raised" | "kept"}.
-- Invariant: next only grows; it never exceeds the chain's nonce except
-- by nonces that have records (so the counter cannot drift above the chain
-- and jam the sender).
local next = redis.call("HGET", KEYS[1], "next")
if not next then
  redis.call("HSET", KEYS[1], "next", ARGV[1])
  return {ARGV[1], "init"}
end
local n = clock(ARGV[3])
if ARGV[2] ~= "" and (ARGV[2] == "*" or fenced(KEYS[1], ARGV[2], n)) and tonumber(ARGV[1]) > tonumber(next) then
  redis.call("HSET", KEYS[1], "next", ARGV[1])
  return {ARGV[1], "raised"}
end
return {next, "kept"}
