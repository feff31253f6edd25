--[[
  Helpers on sorted sets shared by the read scripts (read-header.lua) and the apply script
  (apply-events.lua). Nothing here writes.

  Input:  none (functions only)
  Output: bytes_less, phys_ahead, meta_member
]]

-- memcmp-style byte order of two strings (Lua's < uses strcoll, which is locale-dependent).
local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- The members of sorted set `board` strictly ahead of position (score, player): ZCOUNT below the
-- score, then a binary search by rank among the members of exactly that score (read-window.lua's essay).
local function phys_ahead(board, score, player)
  local lo = redis.call('ZCOUNT', board, '-inf', '(' .. score)
  local hi = redis.call('ZCOUNT', board, '-inf', score)
  -- invariant: members at ranks < lo are ahead; members at ranks >= hi are behind
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call('ZRANGE', board, mid, mid)[1]
    if bytes_less(member, player) then lo = mid + 1 else hi = mid end
  end
  return lo
end

-- Metadata: the companion sorted set "<board key>!meta" holds one member "<player>\n<metadata>"
-- per player that has some (score 0), found by its lexical range: player ids hold no control
-- characters, so [player\n, player\v) holds exactly that player's member. O(log n); nil when none.
local function meta_member(meta_key, player)
  return redis.call('ZRANGEBYLEX', meta_key, '[' .. player .. '\n', '(' .. player .. '\v', 'LIMIT', 0, 1)[1]
end
