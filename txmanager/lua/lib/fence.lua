-- lib/fence: prepended to every transition script after lib/clock
-- (txmanager/script.go). Not a transition itself.
--
-- fenced(sender, token, now) is true when token is the sender's current
-- lease token and the lease has not expired by now: only the replica that
-- holds the sender's lease commits what its tick decided (bumps, receipts,
-- fills). A replica whose lease was taken over gets false and must stop.
local function fenced(sender, token, now)
  local l = redis.call("HMGET", sender, "fence", "leaseUntil")
  return l[1] == token and tonumber(l[2] or "0") >= now
end
