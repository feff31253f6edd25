--[[
  Shared prologue of the read scripts (prepended to each when it is loaded).

  A shard answers reads only while its shard node says the data may be served: the node
  keeps a heartbeat key (PX = heartbeat TTL) holding the shard's stamp (store/src/identity.ts:
  shard id, topic, slots, board specs) while it serves, and the reason while it does not
  (heartbeat.lua). A read passes its own stamp of the shard and is answered only when the
  two are equal: never a stale or partial board, and never one built from other slots or
  board specs than the reader's. The caller explains a refusal from the key's value.

  It also holds the reads themselves, as functions: each read script checks the shard, then
  calls one (read-top.lua, read-window.lua, read-standing.lua, read-entry.lua say what each
  returns); read-batch.lua checks once and calls several. Each returns its script's whole
  reply, status 0 first.

  Moves (store/src/writer/move.ts, store/src/lua/move-*.lua): while a shard's slots change in
  place, its board keys hold members that the reader's placement does not give it, and
  "<prefix>move" says which: phase 'moving' (before the cut-over: the readers of the old
  placement are served; the members of the slots the shard gains are in "<board key>!arr"
  too), 'drain' (after it: the readers of the new placement are served; the members of the
  slots it lost, not yet deleted, are in "<board key>!dep" too) or 'undo' (a move given up:
  the arrivals, not yet deleted, stay in "!arr"). Every read below counts and
  lists a board key minus that companion, its "exclusion": the same key as a sorted set, kept
  exactly equal to the excluded members of the board key (same members, same sort keys) by
  the apply script (moving) or frozen (drain: no writer applies lost slots any more). So
    card = ZCARD(board) - ZCARD(excl),  ahead = ahead(board) - ahead(excl)  (both O(log n)),
  and a range by logical rank first finds the physical rank of its first entry (phys_at:
  jumps by the entries still to skip, each jump O(log n), geometrically fewer as the
  exclusion is a fraction of the board), then walks the board skipping excluded members
  (one ZSCORE each). Without a move (no "<prefix>move"), one HGET per script and nothing else.

  Status codes (first element of every read reply):
     0  OK
    -1  SHARD_DOWN    no heartbeat: the shard node is not running
    -2  MISMATCH      the heartbeat is not the reader's stamp: not serving (and why), or
                      built from another configuration
]]
-- the exclusion companion's suffix of every board key read (see Moves above), or false
local EXCL = false
local excl_cache = {}

local function check_shard(heartbeat_key, expected_stamp)
  local value = redis.call('GET', heartbeat_key)
  if not value then return -1 end
  if value ~= expected_stamp then return -2 end
  local phase = redis.call('HGET', string.sub(heartbeat_key, 1, #heartbeat_key - #'heartbeat') .. 'move', 'phase')
  if phase == 'moving' or phase == 'undo' then EXCL = '!arr' elseif phase == 'drain' then EXCL = '!dep' end
  return 0
end

-- the exclusion of `board` (a sorted set key), or false when it has none
local function excl_of(board)
  if not EXCL then return false end
  local e = excl_cache[board]
  if e == nil then
    e = board .. EXCL
    if redis.call('EXISTS', e) == 0 then e = false end
    excl_cache[board] = e
  end
  return e
end

-- memcmp-style byte order of two strings (Lua's < uses strcoll, which is locale-dependent).
local function bytes_less(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
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

-- The same, not counting the board's exclusion.
local function ahead_of(board, score, player)
  local n = phys_ahead(board, score, player)
  local e = excl_of(board)
  if e then n = n - phys_ahead(e, score, player) end
  return n
end

-- The board's size without its exclusion.
local function card_of(board)
  local n = redis.call('ZCARD', board)
  local e = excl_of(board)
  if e then n = n - redis.call('ZCARD', e) end
  return n
end

-- The player's sort key on the board (false when none, or excluded).
local function score_of(board, player)
  local key = redis.call('ZSCORE', board, player)
  if key then
    local e = excl_of(board)
    if e and redis.call('ZSCORE', e, player) then return false end
  end
  return key
end

-- The members ahead of a member that is on the board at sort key `key` (not excluded).
local function rank_of(board, player, key)
  local n = redis.call('ZRANK', board, player)
  local e = excl_of(board)
  if e then n = n - phys_ahead(e, key, player) end
  return n
end

-- The physical rank of the entry at logical rank r >= 0 of `board` with exclusion `e`, or false
-- past the end. f(p) = entries not excluded among ranks < p never decreases and grows by at most
-- one per rank, so jumping by r - f(p) never passes the answer.
local function phys_at(board, e, r)
  local p = r
  while true do
    local at = redis.call('ZRANGE', board, p, p, 'WITHSCORES')
    if #at == 0 then return false end
    local f = p - phys_ahead(e, at[2], at[1])
    if f < r then
      p = p + (r - f)
    elseif redis.call('ZSCORE', e, at[1]) then
      p = p + 1
    else
      return p
    end
  end
end

-- ZRANGE board start stop WITHSCORES by logical ranks (0 <= start).
local function range_of(board, start, stop)
  local e = excl_of(board)
  if not e then return redis.call('ZRANGE', board, start, stop, 'WITHSCORES') end
  local out = {}
  local want = stop - start + 1
  if want <= 0 then return out end
  local p = phys_at(board, e, start)
  if not p then return out end
  while want > 0 do
    local chunk = redis.call('ZRANGE', board, p, p + want + 15, 'WITHSCORES')
    if #chunk == 0 then break end
    for i = 1, #chunk, 2 do
      if not redis.call('ZSCORE', e, chunk[i]) then
        out[#out + 1] = chunk[i]
        out[#out + 1] = chunk[i + 1]
        want = want - 1
        if want == 0 then break end
      end
    end
    p = p + #chunk / 2
  end
  return out
end

-- The first entry (member, key) of the board at sort key >= `from`, not excluded; {} when none.
local function first_from(board, from)
  local e = excl_of(board)
  if not e then return redis.call('ZRANGE', board, from, '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES') end
  local off = 0
  while true do
    local r = redis.call('ZRANGE', board, from, '+inf', 'BYSCORE', 'LIMIT', off, 16, 'WITHSCORES')
    if #r == 0 then return r end
    for i = 1, #r, 2 do
      if not redis.call('ZSCORE', e, r[i]) then return { r[i], r[i + 1] } end
    end
    off = off + #r / 2
  end
end

-- The excluded entries of each histogram bucket of `board` (bucket -> count), or false.
local function excl_buckets(board)
  local e = excl_of(board)
  if not e then return false end
  local bounds = redis.call('ZRANGE', board .. '!hbounds', 0, -1, 'WITHSCORES')
  local minus = {}
  for i = 1, #bounds, 2 do
    local hi = '+inf'
    if bounds[i + 3] then hi = '(' .. bounds[i + 3] end
    minus[bounds[i]] = redis.call('ZCOUNT', e, bounds[i + 1], hi)
  end
  return minus
end

-- Metadata (apply-events.lua): "<board key>!meta" holds "<player>\n<metadata>" per player that has
-- some; its lexical range [player\n, player\v) is exactly that player's member. '' when none.
local function meta_of(meta_key, player)
  local m = redis.call('ZRANGEBYLEX', meta_key, '[' .. player .. '\n', '(' .. player .. '\v', 'LIMIT', 0, 1)[1]
  if m then return string.sub(m, #player + 2) end
  return ''
end

-- Appends the entries of a ZRANGE ... WITHSCORES reply to `out`: first 1 when the board keeps
-- metadata (its companion key exists) and 0 when not, then member, key (and metadata when 1)
-- for each entry.
local function append_entries(out, board, range)
  local meta_key = board .. '!meta'
  local with_meta = redis.call('EXISTS', meta_key) == 1
  out[#out + 1] = with_meta and 1 or 0
  for i = 1, #range, 2 do
    out[#out + 1] = range[i]
    out[#out + 1] = range[i + 1]
    if with_meta then out[#out + 1] = meta_of(meta_key, range[i]) end
  end
  return out
end

-- Appends to `out` the first shard rank of a window, then the entries of `board` at shard ranks
-- [center - radius, center + radius] (clipped at 0) as append_entries does; with radius 0, only
-- `center` and the flag 0.
local function append_window(out, board, center, radius)
  if radius <= 0 then
    out[#out + 1] = center
    out[#out + 1] = 0
    return out
  end
  local start = center - radius
  if start < 0 then start = 0 end
  out[#out + 1] = start
  return append_entries(out, board, range_of(board, start, center + radius))
end

-- read-top.lua: { 0, card, meta, member1, key1, [metadata1], ... } for the first `count` entries.
local function read_top(board, count)
  return append_entries({ 0, card_of(board) }, board, range_of(board, 0, count - 1))
end

-- read-window.lua: { 0, ahead, card, start, meta, member1, key1, [metadata1], ... } around position (score, player).
local function read_window(board, score, player, radius)
  local lo = ahead_of(board, score, player)
  return append_window({ 0, lo, card_of(board) }, board, lo, radius)
end

-- read-batch.lua's 'r': several players' standings on their own shard and the counts ahead of other
-- shards' positions, at one instant: { 0, card, meta, then per own player: key (false: none), ahead
-- (its ZRANK), [metadata]; then per position: the members strictly ahead of it }. A position with
-- player '' counts the members whose key is strictly below its key.
local function read_ranks(board, players, positions)
  local meta_key = board .. '!meta'
  local with_meta = redis.call('EXISTS', meta_key) == 1
  local out = { 0, card_of(board), with_meta and 1 or 0 }
  for _, player in ipairs(players) do
    local key = score_of(board, player)
    out[#out + 1] = key
    out[#out + 1] = key and rank_of(board, player, key) or 0
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

-- read-batch.lua's 'd': the distinct points indexes (floor(key / units)) of `board` below `bound`,
-- ascending, at most cap + 1 of them: { 0, idx1, idx2, ... }. One ZRANGE per value: O(values log n).
local function read_distinct(board, units, bound, cap)
  local out = { 0 }
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
    return append_entries({ 0, card, start, lo }, board, range)
  end
  local start = lo
  local at = range_of(board, lo, lo)
  if at[1] == player and tonumber(at[2]) == tonumber(score) then start = lo + 1 end
  return append_entries({ 0, card, start, lo }, board, range_of(board, start, start + count - 1))
end

-- read-standing.lua: { 0, key, ahead, card, metadata, start, meta, member1, key1, [metadata1], ... },
-- or { 0, false }.
local function read_standing(board, player, radius)
  local key = score_of(board, player)
  if not key then return { 0, false } end
  local ahead = rank_of(board, player, key)
  return append_window({ 0, key, ahead, card_of(board), meta_of(board .. '!meta', player) }, board, ahead, radius)
end

-- read-entry.lua: { 0, key } (key false when the player has no entry).
local function read_entry(board, player)
  return { 0, score_of(board, player) }
end

-- read-batch.lua's 'h': a board key's histogram (apply-events.lua): { 0, card, bucket1, count1, ... },
-- buckets in sort-key order, empty ones left out.
-- read-batch.lua's 'H': the counts around stored bucket j of a board key's histogram: { 0, card,
-- the entries of the buckets before j, the entries of bucket j }. O(buckets) in the script, 4 numbers out.
local function read_histogram_at(board, j)
  local counts = redis.call('ZRANGE', board .. '!hist', 0, -1, 'WITHSCORES')
  local minus = excl_buckets(board)
  local better, at = 0, 0
  for i = 1, #counts, 2 do
    local b = tonumber(counts[i])
    local c = tonumber(counts[i + 1]) - (minus and minus[counts[i]] or 0)
    if b < j then better = better + c elseif b == j then at = c end
  end
  return { 0, card_of(board), better, at }
end

local function read_histogram(board)
  local out = { 0, card_of(board) }
  local counts = redis.call('ZRANGE', board .. '!hist', 0, -1, 'WITHSCORES')
  local minus = excl_buckets(board)
  if not minus then
    for i = 1, #counts do out[#out + 1] = counts[i] end
    return out
  end
  -- as ZRANGE would list the buckets without the exclusion: by count, then bucket bytes
  local left = {}
  for i = 1, #counts, 2 do
    local c = tonumber(counts[i + 1]) - (minus[counts[i]] or 0)
    if c > 0 then left[#left + 1] = { counts[i], c } end
  end
  table.sort(left, function(x, y)
    if x[2] ~= y[2] then return x[2] < y[2] end
    return bytes_less(x[1], y[1])
  end)
  for _, b in ipairs(left) do
    out[#out + 1] = b[1]
    out[#out + 1] = tostring(b[2])
  end
  return out
end
