-- lib/clock: prepended to every transition script of joinstore and txmanager (internal/luascript), so
-- that all of them read the time and format numbers the same way. Not a
-- transition itself; it touches no key.
--
-- clock(arg) returns now in milliseconds, as a number and as a string: arg
-- when the client passed its clock, else Redis's TIME. int(n) formats an
-- integral number. Numbers given to redis.call or concatenated are otherwise
-- formatted by Lua and Redis with printf's floating point path ("%.14g",
-- "%.17g"), which cost the hot scripts more than some of their commands;
-- a transition hands Redis strings made once with these two.
local function clock(arg)
  if arg and arg ~= "" then
    return arg + 0, arg -- one strtod (tonumber takes two)
  end
  local t = redis.call("TIME")
  local ms = t[1] .. string.sub(string.rep("0", 6 - #t[2]) .. t[2], 1, 3)
  return ms + 0, ms
end
local function int(n)
  return string.format("%d", n)
end
