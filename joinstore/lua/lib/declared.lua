-- declared: the keys a script was given (KEYS), found by name.
--
-- Redis Cluster routes and checks only the keys a script declares: an
-- undeclared key of the same hash tag works, except while the slot
-- migrates (on the source node a key already moved fails the script after
-- its earlier writes; on the importing node a key not yet moved reads as
-- nil). A script that must name a key at run time (a member it kills, the
-- target a group feeds) takes it from KEYS through this guard, never by
-- building it from a prefix.
--
-- declaredKeys() returns {key = f, has = f}: has(name) is the declared key
-- whose name after the session's hash tag ("xgr:{T}:<name>") is name, or
-- nil; key(name) is the same but raises an error when none is declared (a
-- bug guard: callers check with has, before their first write, that every
-- key a transition will touch is declared, and take another path when not).
-- Invariant: every key reached through it is one of KEYS.
local function declaredKeys()
  local byName = {}
  for _, k in ipairs(KEYS) do
    local s = string.find(k, "}:", 1, true)
    if s then
      byName[string.sub(k, s + 2)] = k
    end
  end
  local K = {}
  function K.has(name)
    return byName[name]
  end
  function K.key(name)
    local k = byName[name]
    if not k then
      error("undeclared key " .. name .. ": a script reaches only the keys it was given")
    end
    return k
  end
  return K
end
