-- grant_slots: grant a running session more of its owner's live process
-- slots (lib/slots.lua), or give back those of finished sessions.
--
-- KEYS[1] xgr:{own:O}:slots   KEYS[2] xgr:{own:O}:roots
-- KEYS[3] xgr:{own:O}:expire
-- ARGV[1] rootPid ("" = grant nothing: give back and count only)
-- ARGV[2] slots needed   ARGV[3] the owner's live process quota (0 = none)
-- ARGV[4] the slots a session is granted at a time
--
-- Returns {granted, in use}: granted is at least ARGV[2], or 0 when even
-- that would take the owner over its quota (nothing granted); in use is
-- the sum of the owner's grants afterwards.
-- Invariant: with a quota, the owner's grants never sum to more than it;
-- the caller adds a grant to the session's allow (meta) only after this
-- script granted it, so a session never spends slots its owner did not
-- count.
if ARGV[1] == "" then
  return {0, slotsReclaim(KEYS[1], KEYS[2], KEYS[3])}
end
local granted, used = slotsGrant(KEYS[1], KEYS[2], KEYS[3], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
return {granted or 0, used}
