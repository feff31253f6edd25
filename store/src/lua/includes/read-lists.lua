--[[
  The reads of the read scripts, one function each (read-header.lua's essay; each comment says
  which script or read-batch.lua kind calls it and what it returns, status 0 first).

  Input:  none (functions only; read-header.lua's primitives)
  Output: read_top, read_window, read_ranks, read_ranks_at, read_distinct, read_ties, read_col_distinct,
          read_col_ties, read_after,
          read_standing, read_entry
]]
-- read-top.lua: { 0, card, meta, member1, key1, [metadata1], ... } for the first `count` entries.
local function read_top(board, count)
  return append_entries({ READ_OK, card_of(board) }, board, range_of(board, 0, count - 1))
end

-- read-window.lua: { 0, ahead, card, start, meta, member1, key1, [metadata1], ... } around position (score, player).
local function read_window(board, score, player, radius)
  local lo = ahead_of(board, score, player)
  return append_window({ READ_OK, lo, card_of(board) }, board, lo, radius)
end

-- read-batch.lua's 'r': several players' standings on their own shard and the counts ahead of other
-- shards' positions, at one instant: { 0, card, meta, then per own player: key (false: none), ahead
-- (its ZRANK), [metadata]; then per position: the members strictly ahead of it }. A position with
-- player '' counts the members whose key is strictly below its key.
local function read_ranks(board, players, positions)
  local meta_key = board .. '!meta'
  local with_meta = redis.call('EXISTS', meta_key) == 1
  local out = { READ_OK, card_of(board), with_meta and 1 or 0 }
  for _, player in ipairs(players) do
    local key, member = score_of(board, player)
    out[#out + 1] = key_reply(key, member)
    out[#out + 1] = key and rank_of(board, member, key) or 0
    if with_meta then out[#out + 1] = key and meta_of(meta_key, player) or '' end
  end
  for i = 1, #positions, 2 do out[#out + 1] = ahead_of(board, positions[i], positions[i + 1]) end
  return out
end

-- read-batch.lua's 'P': read_ranks, then, read at the same instant, the id of the newest entry of the
-- shard's change stream ("<prefix>changes" beside "<prefix>board:…"; '0-0' when it has none) and the
-- stream's generation ("<prefix>changes:gen"; '' when none): the position in the shard's changes that
-- those ranks stand at (router/src/watch).
local function read_ranks_at(board, players, positions)
  local out = read_ranks(board, players, positions)
  local at = string.find(board, 'board:', 1, true)
  local prefix = at and string.sub(board, 1, at - 1) or ''
  local last = at and redis.call('XREVRANGE', prefix .. 'changes', '+', '-', 'COUNT', 1)[1]
  out[#out + 1] = last and last[1] or '0-0'
  out[#out + 1] = (at and redis.call('GET', prefix .. 'changes:gen')) or ''
  return out
end

-- read-batch.lua's 'I': what a router's copy of the board (router/src/rank-index) checks itself
-- against, at one instant: { 0, card, moving, change id, generation, metadata }: the board's size as
-- the sorted set holds it, 1 while a move sets players aside on this shard (EXCL: the copy, kept from
-- the change stream, does not stand for the shard then), the change stream's position as
-- read_ranks_at gives it, and 1 when the board keeps metadata (its "!meta" companion exists), which
-- the stream does not carry.
local function read_index_probe(board)
  local out = { READ_OK, redis.call('ZCARD', board), EXCL and 1 or 0 }
  local at = string.find(board, 'board:', 1, true)
  local prefix = at and string.sub(board, 1, at - 1) or ''
  local last = at and redis.call('XREVRANGE', prefix .. 'changes', '+', '-', 'COUNT', 1)[1]
  out[#out + 1] = last and last[1] or '0-0'
  out[#out + 1] = (at and redis.call('GET', prefix .. 'changes:gen')) or ''
  out[#out + 1] = redis.call('EXISTS', board .. '!meta')
  return out
end

-- read-batch.lua's 'd': the distinct points indexes (floor(key / units)) of `board` below `bound`,
-- ascending, at most cap + 1 of them: { 0, idx1, idx2, ... }. One ZRANGE per value: O(values log n).
local function read_distinct(board, units, bound, cap)
  local out = { READ_OK }
  local from = 0
  while #out <= cap + 1 do
    local first = first_from(board, from)
    if #first == 0 then break end
    local idx = math.floor(tonumber(first[2]) / units)
    if idx >= bound then break end
    out[#out + 1] = idx
    from = (idx + 1) * units
  end
  return out
end

-- read-batch.lua's 'g': what ranks the ties of a page read at this instant (router/src/read/page-ties.ts).
-- `anchor` is a sort key (false: none, then { 0, -1, 0 }); its points index, the members with a smaller
-- one (keys below index × units), then with cap > 0 the distinct indexes up to the anchor's (included),
-- ascending, at most cap + 1: { 0, index, below, idx1, idx2, ... }. O(log n), plus O(log n) per value.
local function read_ties(board, units, anchor, cap)
  if not anchor then return { READ_OK, -1, 0 } end
  local idx = math.floor(tonumber(anchor) / units)
  local out = { READ_OK, idx, ahead_of(board, idx * units, '') }
  if cap > 0 then
    local values = read_distinct(board, units, idx + 1, cap)
    for i = 2, #values do out[#out + 1] = values[i] end
  end
  return out
end

-- read-batch.lua's 'D': read_distinct on a board with columns (model/src/columns.ts), where an entry's
-- tie value is its member's first `width` bytes (its column part): the distinct column parts below
-- `bound` (up to it with `upto`), ascending, at most cap + 1: { 0, part1, part2, ... }. The members of
-- one part are "<part>..." and sort below "<part>\255" (hex digits, the separator and UTF-8 bytes are all
-- below 255): one ZRANGE BYLEX per value, O(values log n).
local function read_col_distinct(board, width, bound, upto, cap)
  local out = { READ_OK }
  local from = ''
  while #out <= cap + 1 do
    local m = first_lex(board, from)
    if not m then break end
    local part = string.sub(m, 1, width)
    if bytes_less(bound, part) or (part == bound and not upto) then break end
    out[#out + 1] = part
    from = part .. '\255'
  end
  return out
end

-- read-batch.lua's 'G': read_ties on a board with columns: the anchor is a member (false: none, then
-- { 0, -1, 0 }); its column part, the members with a smaller one, then with cap > 0 the distinct parts
-- up to the anchor's (included): { 0, part, below, part1, part2, ... }. O(log^2 n), plus O(log n) per value.
local function read_col_ties(board, width, anchor, cap)
  if not anchor then return { READ_OK, -1, 0 } end
  local part = string.sub(anchor, 1, width)
  local out = { READ_OK, part, ahead_of(board, 0, part) }
  if cap > 0 then
    local values = read_col_distinct(board, width, part, true, cap)
    for i = 2, #values do out[#out + 1] = values[i] end
  end
  return out
end

-- read-batch.lua's 'a': the `count` members that follow position (score, player) (backward 0), or
-- that precede it (1), as append_entries gives them: { 0, card, start, ahead, meta, member1, key1,
-- [metadata1], ... }; ahead = the members strictly ahead of the position, start = the shard rank
-- of member1. The position's own member, if still there, is in neither direction.
local function read_after(board, score, player, count, backward)
  local lo = ahead_of(board, score, player)
  local card = card_of(board)
  if backward == 1 then
    local start = lo - count
    if start < 0 then start = 0 end
    local range = {}
    if lo > 0 then range = range_of(board, start, lo - 1) end
    return append_entries({ READ_OK, card, start, lo }, board, range)
  end
  local start = lo
  local at = range_of(board, lo, lo)
  if at[1] == player and tonumber(at[2]) == tonumber(score) then start = lo + 1 end
  return append_entries({ READ_OK, card, start, lo }, board, range_of(board, start, start + count - 1))
end

-- read-standing.lua: { 0, key, ahead, card, metadata, start, meta, member1, key1, [metadata1], ... },
-- or { 0, false }.
local function read_standing(board, player, radius)
  local key, member = score_of(board, player)
  if not key then return { READ_OK, false } end
  local ahead = rank_of(board, member, key)
  return append_window({ READ_OK, key_reply(key, member), ahead, card_of(board), meta_of(board .. '!meta', player) }, board, ahead, radius)
end

-- read-entry.lua: { 0, key } (key false when the player has no entry).
local function read_entry(board, player)
  local key, member = score_of(board, player)
  return { READ_OK, key_reply(key, member) }
end
