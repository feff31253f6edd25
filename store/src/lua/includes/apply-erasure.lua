--[[
  Erasure (a tombstone, OP_ERASE: IngestService.DeletePlayer) erases the player from a board's
  every key (generations, periods, windows, metadata) or, value 1, from every board (the key is
  then the boards' common prefix): it SCANs the keys with that prefix, O(keys of the shard); and
  drops the player's remembered event ids of those boards from the partition's dedup set,
  O(its size).

  A team membership ("!team") goes to the teams left ("!left"), so the team deriver takes the player's
  points out of its team; the state another partition owns (a league's placements and tiers, a team's
  members' contributions: on this shard only if that partition is) is left to that partition's
  records, so that a replay decides alike whatever shard holds which partition.

  Input:  DEDUP_KEY (apply-input.lua), HID (apply-moderation.lua); an event's key, player and value
  Output: erase(ev), erase_from(k, player), SEEN and FLOOR (the retention companions' suffixes:
          apply-retention.lua)
]]
local function ends_with(s, suffix) return string.sub(s, -#suffix) == suffix end
local SEEN, FLOOR = '!seen', '!floor'

-- the player's entry of key `k` gone, whatever `k` is (a board key, or one of its companions)
local function erase_from(k, player)
  if redis.call('TYPE', k).ok ~= 'zset' then return end
  if ends_with(k, '!arr') or ends_with(k, '!dep') then
    return -- a move's companions: mirrored by the board key
  elseif ends_with(k, '!join') or ends_with(k, '!att') then
    return -- a tournament's members and attempts (apply-tournaments.lua): kept, the place and the attempts stay taken
  elseif ends_with(k, '!place') or ends_with(k, '!fill') or ends_with(k, '!tier') or ends_with(k, '!settled')
    or ends_with(k, '!sum') or string.find(k, '!m:', 1, true) or string.find(k, '!v:', 1, true) then
    -- another partition's state: a league's placements and tiers (apply-leagues.lua), a team's
    -- members' contributions (apply-teams.lua): changed only by their own partition's records
    return
  elseif ends_with(k, '!left') then
    return -- the teams the player left: the deriver takes its points out of them
  elseif ends_with(k, '!team') then
    -- the player leaves its team (apply-teams.lua): the deriver takes its points out of it
    local left = string.sub(k, 1, -#'!team' - 1) .. '!left'
    for _, m in ipairs(redis.call('ZRANGEBYLEX', k, '[' .. player .. '\n', '(' .. player .. '\v')) do
      zrem(k, m)
      record(k, m)
      redis.call('ZADD', left, 0, m)
      record(left, m)
    end
  elseif ends_with(k, META) then
    drop_meta(string.sub(k, 1, -#META - 1), player)
  elseif ends_with(k, HIST) or ends_with(k, HBOUNDS) then
    return -- a histogram's companions: counted below, by the board key
  elseif ends_with(k, FLOOR) then
    return -- a trim's floors (apply-retention.lua): the partitions', no player's
  elseif ends_with(k, COLS.suffix) then
    return -- a board with columns' companion: with its board key's entry, below
  elseif ends_with(k, SEEN) then
    if zrem(k, player) == 1 then record(k, player) end -- a last event time
  elseif ends_with(k, HID) then
    -- a hidden entry (apply-moderation.lua)
    if zrem(k, player) == 1 then record(k, player) else COLS.remove(k, player) end
  else
    local was = redis.call('ZSCORE', k, player)
    if was and zrem(k, player) == 1 then
      record(k, player)
      entry_moved(k, player, was, nil)
      mirror(k, player)
    elseif not was then
      COLS.remove(k, player)
    end
  end
end

-- The partition's remembered event ids of `player` ("<event id>\n<board key>\n<player>": neither
-- a player id nor a board key holds a newline) on the board whose key is `key` (its generations,
-- periods and windows included) or, `all`, on every board. O(the dedup set).
local function forget_event_ids(player, key, all)
  flush_remembered()
  local suffix = '\n' .. player
  local gone = {}
  local total = redis.call('ZCARD', DEDUP_KEY)
  for start = 0, total - 1, 1000 do
    for _, m in ipairs(redis.call('ZRANGE', DEDUP_KEY, start, start + 999)) do
      if ends_with(m, suffix) then
        local board_key = string.match(string.sub(m, 1, #m - #suffix), '\n([^\n]*)$') or ''
        if all or board_key == key or string.sub(board_key, 1, #key + 1) == key .. '#' then gone[#gone + 1] = m end
      end
    end
  end
  for _, m in ipairs(gone) do
    redis.call('ZREM', DEDUP_KEY, m)
    record(DEDUP_KEY, m)
  end
  read_ids_directly()
end

local function erase(ev)
  local key, player, all = ev.key, ev.player, ev.value == 1
  local pattern = key .. '#*'
  if all then
    pattern = key .. '*'
  else
    erase_from(key, player)
    erase_from(key .. META, player)
    erase_from(key .. HID, player)
  end
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = page[1]
    for _, k in ipairs(page[2]) do erase_from(k, player) end
  until cursor == '0'
  forget_event_ids(player, key, all)
  forget_bounds()
end
