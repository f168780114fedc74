-- expire_records: give a finished session's own records their time to live.
--
-- expireRecords(first, last, ttl) sets EXPIRE ttl (seconds) on KEYS[first]
-- .. KEYS[last] that exist without one (TTL -1); a key that has a TTL keeps
-- it, so that calling it again (a replica's MarkFinished after the finish)
-- never prolongs a record's life. The caller passes the session-level keys
-- (Go: keys.records(), in that order): meta, run, due, steps, wq, targets,
-- jpend, woken. Process records are expired by the transition that ends
-- each process.
-- Invariant: once a session is finished, none of its records lives forever.
local function expireRecords(first, last, ttl)
  if tonumber(ttl) <= 0 then
    return
  end
  for i = first, last do
    if redis.call("TTL", KEYS[i]) == -1 then
      redis.call("EXPIRE", KEYS[i], ttl)
    end
  end
end
