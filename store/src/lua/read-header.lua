--[[
  Shared prologue of the read scripts (prepended to each when it is loaded).

  A shard answers reads only while its shard node says the data may be served: the node
  keeps a heartbeat key (PX = heartbeat TTL) holding the shard's stamp (store/src/identity.ts:
  shard id, topic, slots, board specs) while it serves, and the reason while it does not
  (heartbeat.lua). A read passes its own stamp of the shard and is answered only when the
  two are equal: never a stale or partial board, and never one built from other slots or
  board specs than the reader's. The caller explains a refusal from the key's value.

  Bounded staleness: beside the heartbeat the node keeps "<prefix>current" = "<as of> <bound>"
  (ms, on this Redis's clock, TIME): as of then the shard held every record of the log, and it
  is served only until <as of> + <bound> (LADDER_STALL_MS + 2 heartbeat TTLs). A node cut from Kafka, or from this
  Redis, stops moving <as of>, so its shard is refused once the bound passes, heartbeat or not.
  Without the key (audit views, benchmarks: ShardWriter.markServing) no bound applies.

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

  Assembled by store/src/scripts.ts after the generated constants (store/src/script-codes.ts)
  and includes/sorted-sets.lua; includes/read-lists.lua and includes/read-histograms.lua follow.

  Status codes (first element of every read reply):
    READ_OK           served
    READ_SHARD_DOWN   no heartbeat: the shard node is not running
    READ_MISMATCH     the heartbeat is not the reader's stamp: not serving (and why), or
                      built from another configuration
    READ_NOT_CURRENT  serving, but the node last held the log's end longer ago than its bound
                      (then: the age and the bound, ms)

  Input:  none (functions only: check_shard takes the heartbeat key and the reader's stamp)
  Output: check_shard, excl_of, ahead_of, card_of, score_of, key_reply, rank_of, range_of, first_from,
          first_lex, meta_of, append_entries, append_window; WINDOW_FIRST and WINDOW_FIRST_MEMBER (the
          first key and member append_entries listed)
]]
-- the exclusion companion's suffix of every board key read (see Moves above), or false
local EXCL = false
local excl_cache = {}
-- the sort key and member of the first entry the last append_entries listed (false: none): read_ties'
-- anchor (on a board with columns, the member: read_col_ties)
local WINDOW_FIRST, WINDOW_FIRST_MEMBER = false, false

-- READ_OK when the shard may be served; else the refusal's status, and for READ_NOT_CURRENT how
-- long ago the node last held the log's end and the bound (ms)
local function check_shard(heartbeat_key, expected_stamp)
  local value = redis.call('GET', heartbeat_key)
  if not value then return READ_SHARD_DOWN end
  if value ~= expected_stamp then return READ_MISMATCH end
  local prefix = string.sub(heartbeat_key, 1, #heartbeat_key - #'heartbeat')
  local current = redis.call('GET', prefix .. 'current')
  if current then
    local as_of, bound = string.match(current, '^(%d+) (%d+)$')
    local t = redis.call('TIME')
    local age = (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) - tonumber(as_of)
    if age > tonumber(bound) then return READ_NOT_CURRENT, age, tonumber(bound) end
  end
  local phase = redis.call('HGET', prefix .. 'move', 'phase')
  if phase == 'moving' or phase == 'undo' then EXCL = '!arr' elseif phase == 'drain' then EXCL = '!dep' end
  return READ_OK
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

-- The player's sort key on the board (false when none, or excluded) and its member (the player, or
-- on a board with columns the entry's member: sorted-sets.lua's COLS.member_of).
local function score_of(board, player)
  local member, key = COLS.member_of(board, player)
  if not key then return false, player end
  local e = excl_of(board)
  if e and redis.call('ZSCORE', e, member) then return false, member end
  return key, member
end

-- What a reply gives as a player's sort key: the key, or on a board with columns (every key 0) the
-- entry's member, which the router takes as the entry's position (store/src/reader.ts parseKey).
local function key_reply(key, member)
  if key and string.find(member, COLS.sep, 1, true) then return member end
  return key
end

-- The members ahead of a member that is on the board at sort key `key` (not excluded).
local function rank_of(board, member, key)
  local n = redis.call('ZRANK', board, member)
  local e = excl_of(board)
  if e then n = n - phys_ahead(e, key, member) end
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

-- The first member (not excluded) of a board with columns (every key 0) at or after `from` in byte
-- order ('' for the first of all); false when none.
local function first_lex(board, from)
  local e = excl_of(board)
  local low = from == '' and '-' or '[' .. from
  local off = 0
  while true do
    local r = redis.call('ZRANGE', board, low, '+', 'BYLEX', 'LIMIT', off, 16)
    if #r == 0 then return false end
    for _, m in ipairs(r) do
      if not e or not redis.call('ZSCORE', e, m) then return m end
    end
    off = off + #r
  end
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

-- Metadata (apply-events.lua): "<board key>!meta" holds "<player>\n<metadata>" per player that has
-- some; its lexical range [player\n, player\v) is exactly that player's member. '' when none.
local function meta_of(meta_key, player)
  local m = meta_member(meta_key, player)
  if m then return string.sub(m, #player + 2) end
  return ''
end

-- Appends the entries of a ZRANGE ... WITHSCORES reply to `out`: first 1 when the board keeps
-- metadata (its companion key exists) and 0 when not, then member, key (and metadata when 1)
-- for each entry. Keeps the first entry's key in WINDOW_FIRST.
local function append_entries(out, board, range)
  WINDOW_FIRST, WINDOW_FIRST_MEMBER = range[2] or false, range[1] or false
  local meta_key = board .. '!meta'
  local with_meta = redis.call('EXISTS', meta_key) == 1
  out[#out + 1] = with_meta and 1 or 0
  for i = 1, #range, 2 do
    out[#out + 1] = range[i]
    out[#out + 1] = range[i + 1]
    if with_meta then out[#out + 1] = meta_of(meta_key, COLS.player_of(range[i])) end
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

