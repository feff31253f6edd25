--[[
  Moves (store/src/writer/move.ts): while "<prefix>move" is in phase 'moving', the shard's slots
  change in place: its own node applies the slots it has (and some it will lose), and the move's
  replay applies the slots it gains, into the same board keys. The hash names the partitions
  gained ("arr") and lost ("dep"); every entry the apply script adds, moves or removes in a board
  key for one of those partitions is mirrored into the key's companion "<key>!arr" or "<key>!dep"
  (same member, same sort key, same expiry), so each companion stays exactly the board's members
  of those slots, which the readers leave out (read-header.lua). Arrivals are not in the change
  stream (apply-changes.lua): no reader of this placement sees them. A rank report counts the
  members ahead without the exclusion the readers use. One HMGET per call otherwise.

  Input:  MOVE_KEY, PARTITION (apply-input.lua)
  Output: MIRROR_INTO ('!arr', '!dep' or false: the partition being applied's), mirror_partition()
          (call on entering a partition), mirror(key, member), rank_seen(key, player, at), card_seen(key)
]]
local move = redis.call('HMGET', MOVE_KEY, 'phase', 'arr', 'dep')
local MIRROR_INTO, EXCLUDED = false, false
-- where the entries of the partition being applied are mirrored
local function mirror_partition()
  MIRROR_INTO = false
  if move[1] ~= 'moving' then return end
  if move[2] and string.find(move[2], ',' .. PARTITION .. ',', 1, true) then MIRROR_INTO = '!arr'
  elseif move[3] and string.find(move[3], ',' .. PARTITION .. ',', 1, true) then MIRROR_INTO = '!dep' end
end
if move[1] == 'moving' then
  EXCLUDED = '!arr'
elseif move[1] == 'drain' then
  EXCLUDED = '!dep'
elseif move[1] == 'undo' then
  EXCLUDED = '!arr'
end

-- after any change of a member of board `key` (the player, or on a board with columns the entry's
-- member; its expiry included): the same in its companion
local function mirror(key, member)
  if not MIRROR_INTO then return end
  local m = key .. MIRROR_INTO
  local s = redis.call('ZSCORE', key, member)
  if not s then
    redis.call('ZREM', m, member)
    return
  end
  redis.call('ZADD', m, s, member)
  local at = redis.call('PEXPIRETIME', key)
  if at > 0 then redis.call('PEXPIREAT', m, at) else redis.call('PERSIST', m) end
end

-- ZRANK of `player` (at sort key `at`) on `key`, without the readers' exclusion (read-header.lua's ahead_of)
local function rank_seen(key, player, at)
  local n = redis.call('ZRANK', key, player)
  local e = EXCLUDED and key .. EXCLUDED
  if not e or redis.call('EXISTS', e) == 0 then return n end
  return n - phys_ahead(e, at, player)
end

-- ZCARD of `key` without the readers' exclusion
local function card_seen(key)
  local e = EXCLUDED and key .. EXCLUDED
  return redis.call('ZCARD', key) - (e and redis.call('ZCARD', e) or 0)
end
