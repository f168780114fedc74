-- sync_nonce: align the sender's next nonce with the chain. The first call
-- for a sender sets it to the chain's pending nonce (anyone may do that).
-- Later, when the chain is ahead (its nonces were used by transactions no
-- record holds: a restore of Redis from a backup, or the key used outside
-- xgr), next is not raised over them unread: the chain's nonce is kept as
-- field "ahead", submit.lua reserves no nonce while ahead > next, and the
-- lease holder's reconcile.lua reads the blocks from field "scanned" on,
-- lists the transactions no record holds (so that the executions that
-- sent them adopt them instead of sending again) and only then raises
-- next. A sender whose state has no "scanned" yet (written before it
-- existed) is raised at once, as before. next is never lowered: every
-- nonce below it belongs to a key's record, and a lower nonce would be
-- signed twice.
--
-- KEYS[1] xgr:txm:{T}:sender
-- ARGV[1] the chain's pending nonce for the sender  ARGV[2] lease token
-- ("" for the first call; "*" for a replica's first reservation, which
-- may act without the lease: "ahead" only grows then, and a raise to the
-- chain's pending nonce is monotonic and covers only nonces the chain has
-- used)  ARGV[3] now (ms; "" = the server clock)
--
-- Returns {next, "init" | "raised" | "ahead" | "kept"}.
-- Invariant: next only grows; it never exceeds the chain's nonce except
-- by nonces that have records (so the counter cannot drift above the chain
-- and jam the sender); with "scanned" set, next passes a nonce the chain
-- used only after reconcile.lua listed its transaction.
local next = redis.call("HGET", KEYS[1], "next")
if not next then
  redis.call("HSET", KEYS[1], "next", ARGV[1])
  return {ARGV[1], "init"}
end
local n = clock(ARGV[3])
if ARGV[2] ~= "" and (ARGV[2] == "*" or fenced(KEYS[1], ARGV[2], n)) and tonumber(ARGV[1]) > tonumber(next) then
  if redis.call("HEXISTS", KEYS[1], "scanned") == 0 then
    redis.call("HSET", KEYS[1], "next", ARGV[1])
    return {ARGV[1], "raised"}
  end
  local ahead = redis.call("HGET", KEYS[1], "ahead")
  if ARGV[2] ~= "*" or not ahead or tonumber(ahead) < tonumber(ARGV[1]) then
    redis.call("HSET", KEYS[1], "ahead", ARGV[1])
  end
  return {next, "ahead"}
end
return {next, "kept"}
