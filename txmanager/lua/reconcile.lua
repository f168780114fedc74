-- reconcile: record what the lease holder read from a run of blocks: the
-- sender's transactions in blocks ARGV[2]+1 .. ARGV[3] whose nonces no
-- record holds (nonce >= next) are listed unclaimed (lib/unclaimed.lua),
-- the blocks count as read (field scanned), and next rises to the
-- chain's nonce after them (ARGV[4]): every nonce below it is now held by
-- a record or listed. Field ahead (sync_nonce.lua) is dropped once next
-- reaches it, or when the holder reads a pending nonce not above next
-- (ARGV[5]: the transactions that were ahead left the node's pool).
--
-- KEYS[1] xgr:txm:{T}:sender  KEYS[2] xgr:txm:{T}:unclaimed
-- KEYS[3] xgr:txm:{T}:unclaimedTx  KEYS[4] xgr:txm:{T}:unclaimedBy
-- ARGV[1] lease token, or "*" for a replica whose Submit found the sender
-- unreconciled (it reads the blocks itself rather than wait for the
-- holder's tick: what it lists are facts of the chain, and the compare
-- and set on scanned keeps two readers from committing one block twice;
-- it does not drop ahead on ARGV[5])  ARGV[2] the last block read before (field scanned
-- as the caller read it; "" when it has none)  ARGV[3] the last block read
-- now  ARGV[4] the sender's nonce after block ARGV[3] (every nonce below
-- it was used in a block up to ARGV[3])  ARGV[5] the chain's pending
-- nonce the caller read  ARGV[6] now (ms; "" = the server clock)
-- ARGV[7..] the sender's transactions in those blocks, each a JSON object
-- {nonce, hash, raw, to, value, data, gas, tip, feeCap, gasPrice, block,
-- blockHash} (numbers as decimal strings, bytes as 0x hex)
--
-- Returns {"read", next, listed}, or {"stale", scanned} when scanned is not
-- ARGV[2] any more (another holder read these blocks: nothing changes).
-- Error "LEASE_LOST" when ARGV[1] is neither "*" nor the sender's current
-- lease.
-- Invariant: each block is read once (scanned only grows, by compare and
-- set); a nonce is listed only when no record holds it and it is not
-- listed yet; next rises only over nonces the chain used in blocks read.
local n, now = clock(ARGV[6])
local holder = ARGV[1] ~= "*"
if holder and not fenced(KEYS[1], ARGV[1], n) then
  return redis.error_reply("LEASE_LOST the sender's lease is not held by this token")
end
local s = redis.call("HGET", KEYS[1], "scanned") or ""
if s ~= ARGV[2] then
  return {"stale", s}
end
local next = tonumber(redis.call("HGET", KEYS[1], "next"))
local listed = 0
for i = 7, #ARGV do
  local e = cjson.decode(ARGV[i])
  if tonumber(e.nonce) >= next and listUnclaimed(KEYS[2], KEYS[3], KEYS[4], e, now) then
    listed = listed + 1
  end
end
redis.call("HSET", KEYS[1], "scanned", ARGV[3])
if tonumber(ARGV[4]) > next then
  next = tonumber(ARGV[4])
  redis.call("HSET", KEYS[1], "next", int(next))
end
local ahead = redis.call("HGET", KEYS[1], "ahead")
if ahead and (tonumber(ahead) <= next or (holder and tonumber(ARGV[5]) <= next)) then
  redis.call("HDEL", KEYS[1], "ahead")
end
return {"read", int(next), listed}
