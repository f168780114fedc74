-- lib/decimal: exact arithmetic on amounts of wei, prepended to the
-- execution scripts that keep them (value and spend). Not a transition; it
-- touches no key. Wei amounts pass 2^53, where Lua's numbers stop being
-- exact, so they are kept as decimal strings: canonical (digits only, no
-- leading zero but in "0" itself), as the Go side sends them and as these
-- functions return them.
--
-- dec_cmp(a, b) is -1, 0 or 1; dec_add(a, b) is a + b; dec_sub(a, b) is
-- a - b for a >= b ("0" when b > a: never negative).
local function dec_cmp(a, b)
  if #a ~= #b then
    return #a < #b and -1 or 1
  end
  if a == b then
    return 0
  end
  return a < b and -1 or 1
end
local function dec_trim(digits)
  local s = string.reverse(table.concat(digits)):gsub("^0+", "")
  if s == "" then
    return "0"
  end
  return s
end
local function dec_add(a, b)
  local out, carry, i, j = {}, 0, #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local d = carry
    if i > 0 then d = d + string.byte(a, i) - 48; i = i - 1 end
    if j > 0 then d = d + string.byte(b, j) - 48; j = j - 1 end
    if d >= 10 then out[#out + 1], carry = d - 10, 1 else out[#out + 1], carry = d, 0 end
  end
  return dec_trim(out)
end
local function dec_sub(a, b)
  if dec_cmp(a, b) <= 0 then
    return "0"
  end
  local out, borrow, i, j = {}, 0, #a, #b
  while i > 0 do
    local d = string.byte(a, i) - 48 - borrow
    if j > 0 then d = d - (string.byte(b, j) - 48); j = j - 1 end
    if d < 0 then out[#out + 1], borrow = d + 10, 1 else out[#out + 1], borrow = d, 0 end
    i = i - 1
  end
  return dec_trim(out)
end
