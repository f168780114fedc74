-- rewind: undo the cache changes of the blocks above a common
-- ancestor after a reorg, and move the checkpoint back to the ancestor.
--
-- KEYS[1] xgr:{idx:C}:head  KEYS[2] xgr:{idx:C}:blocks  KEYS[3] xgr:{idx:C}:pending
-- KEYS[4..] the undo lists of the rewound blocks, newest first, then every
--           entry key those lists name
-- ARGV[1] the checkpoint hash the caller read  ARGV[2] ancestor number
-- ARGV[3] ancestor hash  ARGV[4] number of rewound blocks
--
-- Last KEYS: xgr:{idx:C}:lease; last ARGV: the fence (see below).
-- Returns {changes undone, started triggers kept}, or STALE_HEAD (also
-- when an undo list names an entry key the caller did not declare: the
-- lists changed since it read them; nothing was written), or NOT_HOLDER
-- when the caller's indexing lease is not the live one.
-- The entry keys an undo entry names are taken from KEYS by name, and
-- every one is checked before the first write.
-- Invariant: after a rewind the cache is exactly what it was when the
-- ancestor was the head; a trigger whose session already started is kept
-- (and counted: it was started from a block that is gone); the script
-- reaches declared keys only.
if (redis.call("HGET", KEYS[1], "hash") or "") ~= ARGV[1] then
  return redis.error_reply("STALE_HEAD the checkpoint moved")
end
-- The fence: the last ARGV is the indexing lease the caller holds ("" for
-- an unfenced caller), the last KEYS the lease key xgr:{idx:C}:lease.
local fence = ARGV[#ARGV]
if fence ~= "" and redis.call("GET", KEYS[#KEYS]) ~= fence then
  return redis.error_reply("NOT_HOLDER the indexing lease is not " .. fence)
end
local n = tonumber(ARGV[4])
-- The entry keys, declared after the undo lists and before the lease.
local declared = {}
for i = 4 + n, #KEYS - 1 do
  declared[KEYS[i]] = KEYS[i]
end
-- Every undo entry, read and its key found among KEYS before any write.
local lists = {}
for i = 1, n do
  local entries = redis.call("LRANGE", KEYS[3 + i], 0, -1)
  local us = {}
  for j = 1, #entries do
    local u = cjson.decode(entries[j])
    us[j] = {k = declared[u.k], prev = u.prev}
    if not us[j].k then
      return redis.error_reply("STALE_HEAD the undo lists name a key the caller did not declare (they changed)")
    end
  end
  lists[i] = us
end
local undone, kept = 0, 0
for i = 1, n do
  local us = lists[i]
  for j = #us, 1, -1 do
    local k, prev = us[j].k, us[j].prev
    if redis.call("HGET", k, "status") == "started" then
      kept = kept + 1
    else
      redis.call("DEL", k)
      redis.call("ZREM", KEYS[3], k)
      if prev then
        local flat = {}
        for f, v in pairs(prev) do
          flat[#flat + 1] = f
          flat[#flat + 1] = v
        end
        redis.call("HSET", k, unpack(flat))
      end
      undone = undone + 1
    end
  end
  redis.call("DEL", KEYS[3 + i])
end
local anc = tonumber(ARGV[2])
for _, num in ipairs(redis.call("HKEYS", KEYS[2])) do
  if tonumber(num) > anc then
    redis.call("HDEL", KEYS[2], num)
  end
end
redis.call("HSET", KEYS[1], "number", ARGV[2], "hash", ARGV[3])
return {undone, kept}
