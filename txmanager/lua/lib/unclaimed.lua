-- lib/unclaimed: the sender's unclaimed chain transactions, prepended to
-- the transitions that list or adopt them (submit, reconcile,
-- adopt_queued; txmanager/script.go). Not a transition itself.
--
-- An unclaimed transaction is one the sender's key signed, found in a block
-- (reconcile.lua), whose nonce no record holds: sent by a replica whose
-- record Redis lost (a restore from a backup, a cut AOF), or sent outside
-- xgr. Three keys hold them, all under the sender's hash tag:
--   U  xgr:txm:{T}:unclaimed    zset, member nonce, score when it was listed (ms)
--   TX xgr:txm:{T}:unclaimedTx  hash, nonce -> JSON {nonce, hash, raw, to,
--                               value, data, gas, tip, feeCap, gasPrice,
--                               block, blockHash, at}
--   BY xgr:txm:{T}:unclaimedBy  hash, call print -> JSON array of nonces,
--                               lowest first
-- The call print is an index only: a match compares to, value and data
-- exactly.

-- callPrint is the index of a call: to (lower case), value (decimal wei)
-- and data (0x hex, lower case).
local function callPrint(to, value, data)
  return redis.sha1hex(string.lower(to) .. "|" .. value .. "|" .. string.lower(data))
end

-- listUnclaimed adds transaction e (a table as TX holds it) unless its
-- nonce is listed already; true when it was added.
local function listUnclaimed(u, tx, by, e, now)
  if redis.call("HEXISTS", tx, e.nonce) == 1 then
    return false
  end
  e.at = now
  redis.call("HSET", tx, e.nonce, cjson.encode(e))
  redis.call("ZADD", u, now, e.nonce)
  local fp = callPrint(e.to, e.value, e.data)
  local list = redis.call("HGET", by, fp)
  local nonces = {}
  if list then
    nonces = cjson.decode(list)
  end
  table.insert(nonces, e.nonce)
  redis.call("HSET", by, fp, cjson.encode(nonces))
  return true
end

-- dropUnclaimed removes nonce n from the three keys and returns its entry
-- (nil when it is not listed).
local function dropUnclaimed(u, tx, by, n)
  local raw = redis.call("HGET", tx, n)
  if not raw then
    return nil
  end
  local e = cjson.decode(raw)
  local fp = callPrint(e.to, e.value, e.data)
  local list = redis.call("HGET", by, fp)
  if list then
    local kept = {}
    for _, m in ipairs(cjson.decode(list)) do
      if m ~= n then
        table.insert(kept, m)
      end
    end
    if #kept == 0 then
      redis.call("HDEL", by, fp)
    else
      redis.call("HSET", by, fp, cjson.encode(kept))
    end
  end
  redis.call("HDEL", tx, n)
  redis.call("ZREM", u, n)
  return e
end

-- takeUnclaimed removes and returns the unclaimed transaction of lowest
-- nonce whose call is exactly (to, value, data); nil when there is none.
local function takeUnclaimed(u, tx, by, to, value, data)
  local list = redis.call("HGET", by, callPrint(to, value, data))
  if not list then
    return nil
  end
  for _, n in ipairs(cjson.decode(list)) do
    local raw = redis.call("HGET", tx, n)
    if raw then
      local e = cjson.decode(raw)
      if string.lower(e.to) == string.lower(to) and e.value == value and string.lower(e.data) == string.lower(data) then
        return dropUnclaimed(u, tx, by, n)
      end
    end
  end
  return nil
end

-- adoptInto makes record x (key) hold the mined transaction e, as
-- record.lua and settle.lua would have left it had this replica sent it:
-- state included, e's nonce, hash, bytes, fees and block, one attempt. The
-- tick reads its receipt and makes it final (or, after a reorg, sends the
-- same bytes again); nothing is signed.
local function adoptInto(x, a, included, key, e, now)
  redis.call("HSET", x, "state", "included", "nonce", e.nonce, "gas", e.gas, "hash", e.hash, "raw", e.raw,
    "attempts", "1", "tip", e.tip, "feeCap", e.feeCap, "gasPrice", e.gasPrice, "attemptBlock", e.block,
    "block", e.block, "blockHash", e.blockHash, "reservedAt", now, "signedAt", now, "includedAt", now,
    "adoptedAt", now)
  redis.call("DEL", a)
  redis.call("RPUSH", a, cjson.encode({n = 1, hash = e.hash, raw = e.raw, tip = e.tip, feeCap = e.feeCap,
    gasPrice = e.gasPrice, block = e.block, at = now}))
  redis.call("ZADD", included, e.nonce, key)
end
