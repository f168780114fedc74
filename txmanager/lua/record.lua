-- record: store the first signed transaction of a reserved key (reserved →
-- signed), before anything is broadcast.
--
-- KEYS[1] xgr:txm:{T}:x:<key>  KEYS[2] xgr:txm:{T}:a:<key> (attempts)
-- ARGV[1] nonce the bytes were signed with  ARGV[2] tx hash  ARGV[3] raw tx (0x hex)
-- ARGV[4] tip cap  ARGV[5] fee cap  ARGV[6] gas price ("" for EIP-1559)
-- ARGV[7] chain head when signed  ARGV[8] now (ms; "" = the server clock)
--
-- Returns {"recorded"}, or {"taken", field, value, ...} (the record as
-- HGETALL gives it) when the key is no longer reserved under ARGV[1]:
-- another replica recorded its own signature of the same reservation first,
-- and the caller must broadcast the stored bytes, not its own.
-- Invariant: a key's bytes are signed with the nonce it reserved, never
-- another; of several signatures of one reservation only the first is
-- stored, and only stored bytes are ever broadcast.
local r = redis.call("HMGET", KEYS[1], "state", "nonce")
if r[1] ~= "reserved" or r[2] ~= ARGV[1] then
  local rec = redis.call("HGETALL", KEYS[1])
  table.insert(rec, 1, "taken")
  return rec
end
local _, now = clock(ARGV[8])
redis.call("HSET", KEYS[1], "state", "signed", "hash", ARGV[2], "raw", ARGV[3], "attempts", "1",
  "tip", ARGV[4], "feeCap", ARGV[5], "gasPrice", ARGV[6], "attemptBlock", ARGV[7], "signedAt", now)
redis.call("RPUSH", KEYS[2], cjson.encode({n = 1, hash = ARGV[2], raw = ARGV[3], tip = ARGV[4],
  feeCap = ARGV[5], gasPrice = ARGV[6], block = ARGV[7], at = now}))
return {"recorded"}
