-- commit: record what a batch of blocks changed in the verified
-- orchestration cache, extend the window of recent blocks and move the
-- checkpoint — all at once, so a crash never skips or repeats a block.
--
-- KEYS[1] xgr:{idx:C}:head    hash: number, hash (the checkpoint)
-- KEYS[2] xgr:{idx:C}:blocks  hash: number -> "hash parent" (the window)
-- KEYS[3] xgr:{idx:C}:pending zset: trigger starts not yet started, by block
-- KEYS[4..] per block of the batch its undo list xgr:{idx:C}:undo:<n>, then
--           per pruned block its undo list, then per change its entry key
-- ARGV[1] the checkpoint hash the caller read ("" for an empty index):
--         the commit applies only on top of it (a second writer is refused)
-- ARGV[2] number of blocks B, ARGV[3] number of pruned blocks P,
-- ARGV[4] number of changes C, then flat:
--   per block (ascending; the last is the new head) n, hash, parent;
--   per pruned block n;
--   per change (in KEYS order) the index of its block among the B (1-based),
--   flags (any of "d" delete and "p" pending: a trigger start, whose entry
--   key also goes into the pending set, scored by its block), the number
--   of fields F, then F field, value pairs.
-- (Flat arguments: a JSON batch cost the decoding of every entry's text.)
--
-- Last KEYS: xgr:{idx:C}:lease; last ARGV: the fence (see below).
-- Returns "ok", or an error STALE_HEAD when the checkpoint moved, or
-- NOT_HOLDER when the caller's indexing lease is not the live one.
-- Invariant: the cache, the window and the checkpoint always describe the
-- same chain prefix; every cache change of a block in the window can be
-- undone (its previous value is in the block's undo list, as
-- {"k": key, "prev": {field: value}}; no prev: the key did not exist).
local cur = redis.call("HGET", KEYS[1], "hash") or ""
if cur ~= ARGV[1] then
  return redis.error_reply("STALE_HEAD the checkpoint is " .. cur .. ", not " .. ARGV[1])
end
-- The fence: the last ARGV is the indexing lease the caller holds ("" for
-- an unfenced caller), the last KEYS the lease key xgr:{idx:C}:lease.
local fence = ARGV[#ARGV]
if fence ~= "" and redis.call("GET", KEYS[#KEYS]) ~= fence then
  return redis.error_reply("NOT_HOLDER the indexing lease is not " .. fence)
end
local nb, np, nc = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local B = 3 -- KEYS before the undo lists
local a = 5
local blockN, undo = {}, {}
for i = 1, nb do
  blockN[i] = ARGV[a]
  undo[i] = {}
  redis.call("HSET", KEYS[2], ARGV[a], ARGV[a + 1] .. " " .. ARGV[a + 2])
  a = a + 3
end
for i = 1, np do
  redis.call("HDEL", KEYS[2], ARGV[a])
  redis.call("DEL", KEYS[B + nb + i])
  a = a + 1
end
local encode = cjson.encode
for i = 1, nc do
  local key = KEYS[B + nb + np + i]
  local bi, flags, nf = tonumber(ARGV[a]), ARGV[a + 1], tonumber(ARGV[a + 2])
  a = a + 3
  local prev = redis.call("HGETALL", key)
  local list = undo[bi]
  if #prev > 0 then
    local m = {}
    for j = 1, #prev, 2 do
      m[prev[j]] = prev[j + 1]
    end
    list[#list + 1] = encode({k = key, prev = m})
    redis.call("DEL", key)
  else
    list[#list + 1] = encode({k = key})
  end
  local del, pending = flags == "d" or flags == "dp", flags == "p" or flags == "dp"
  if not del and nf > 0 then
    redis.call("HSET", key, unpack(ARGV, a, a + 2 * nf - 1))
  end
  a = a + 2 * nf
  if pending then
    redis.call("ZADD", KEYS[3], blockN[bi], key)
  end
end
-- The undo records of a block in one RPUSH each (in chunks: unpack has a
-- limit on how many values it returns).
for i = 1, nb do
  local list = undo[i]
  for j = 1, #list, 1000 do
    redis.call("RPUSH", KEYS[B + i], unpack(list, j, math.min(j + 999, #list)))
  end
end
redis.call("HSET", KEYS[1], "number", blockN[nb], "hash", ARGV[5 + 3 * (nb - 1) + 1])
return "ok"
