-- index_commit: record what a batch of blocks changed in the verified
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
-- ARGV[2] JSON {"blocks":[{"n","hash","parent"}], "pruned":[n...],
--         "changes":[{"block": n, "del": bool, "fields": {...}, "pending": bool}]}
--         (a pending change is a trigger start: its entry key also goes into
--         the pending set, scored by its block)
--         (changes in KEYS order; "blocks" ascending; the last is the new head)
--
-- Returns "ok", or an error STALE_HEAD when the checkpoint moved.
-- Invariant: the cache, the window and the checkpoint always describe the
-- same chain prefix; every cache change of a block in the window can be
-- undone (its previous value is in the block's undo list).
local cur = redis.call("HGET", KEYS[1], "hash") or ""
if cur ~= ARGV[1] then
  return redis.error_reply("STALE_HEAD the checkpoint is " .. cur .. ", not " .. ARGV[1])
end
local b = cjson.decode(ARGV[2])
local nb, np = #b.blocks, #b.pruned
local undoOf = {}
local B = 3 -- KEYS before the undo lists
for i, blk in ipairs(b.blocks) do
  undoOf[blk.n] = KEYS[B + i]
  redis.call("HSET", KEYS[2], blk.n, blk.hash .. " " .. blk.parent)
end
for i, n in ipairs(b.pruned) do
  redis.call("HDEL", KEYS[2], n)
  redis.call("DEL", KEYS[B + nb + i])
end
for i, c in ipairs(b.changes) do
  local key = KEYS[B + nb + np + i]
  local prev = redis.call("HGETALL", key)
  local undo = {k = key}
  if #prev > 0 then
    local m = {}
    for j = 1, #prev, 2 do
      m[prev[j]] = prev[j + 1]
    end
    undo.prev = m
  end
  redis.call("RPUSH", undoOf[c.block], cjson.encode(undo))
  redis.call("DEL", key)
  if not c.del then
    local flat = {}
    for f, v in pairs(c.fields) do
      flat[#flat + 1] = f
      flat[#flat + 1] = tostring(v)
    end
    redis.call("HSET", key, unpack(flat))
  end
  if c.pending then
    redis.call("ZADD", KEYS[3], c.block, key)
  end
end
local head = b.blocks[nb]
redis.call("HSET", KEYS[1], "number", head.n, "hash", head.hash)
return "ok"
