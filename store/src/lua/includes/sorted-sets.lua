--[[
  Helpers on sorted sets shared by the read scripts (read-header.lua) and the apply script
  (apply-events.lua). Nothing here writes.

  Input:  none (functions only)
  Output: bytes_less, phys_ahead, meta_member, COLS ({ suffix, sep, player_of, part, member_of }; apply-columns.lua
          adds apply and remove)
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
-- When every member has that score (a board with columns: model/src/columns.ts), one ZLEXCOUNT counts
-- them by their bytes instead: O(log n) where the search is O(log^2 n).
local function phys_ahead(board, score, player)
  local lo = redis.call('ZCOUNT', board, '-inf', '(' .. score)
  local hi = redis.call('ZCOUNT', board, '-inf', score)
  if lo == 0 and hi > 0 and hi == redis.call('ZCARD', board) then return redis.call('ZLEXCOUNT', board, '-', '(' .. player) end
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

-- Boards with columns (model/src/columns.ts): members "<order part>\31<player>", all at score 0; the
-- companion "<board key>!cols" holds "<player>\n<order part>" per entry (score 0), found by lexical
-- range like metadata. Player ids hold no control characters, so the separator splits any member.
-- One table of fields and functions: a Lua function holds at most 200 locals, and each script is one.
local COLS = { suffix = '!cols', sep = '\31' }

-- the player id of a board member: the member itself, or what follows the separator
function COLS.player_of(member)
  local at = string.find(member, COLS.sep, 1, true)
  if at then return string.sub(member, at + 1) end
  return member
end

-- the order part of `player`'s member on the board with columns whose key is `board`; nil when none
function COLS.part(board, player)
  local m = meta_member(board .. COLS.suffix, player) -- the same "<player>\n..." lookup as metadata's
  if m then return string.sub(m, #player + 2) end
  return nil
end

-- `player`'s member of `board` and its score: the player itself, or on a board with columns the
-- entry's member; nil when the player has no entry. One ZSCORE on a one-column board holding the
-- player, one ZRANGEBYLEX more otherwise.
function COLS.member_of(board, player)
  local key = redis.call('ZSCORE', board, player)
  if key then return player, key end
  local part = COLS.part(board, player)
  if not part then return nil end
  local m = part .. COLS.sep .. player
  key = redis.call('ZSCORE', board, m)
  if not key then return nil end
  return m, key
end
