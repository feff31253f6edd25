--[[
  Deletes up to ARGV[1] of the excluded members of one board key (the shard node, after a
  move's cut-over or cancel: writer/move.ts): each leaves the board key, its metadata, its
  histogram count and on a board with columns its "!cols" entry, and its companion, in this one step, so readers (who count the board key
  minus the companion: read-header.lua) see no change. Not in the change stream: the members
  were not on the board the readers read. When the companion is empty it is gone.

  Input:
    KEYS[1]  the move
    KEYS[2]  the board key
    ARGV[1]  at most this many members
  Output:
    { 0, deleted, left }   or { -1, phase } when the move is not in phase 'drain' or 'undo'
]]
local phase = redis.call('HGET', KEYS[1], 'phase')
local suffix
if phase == 'drain' then suffix = '!dep' elseif phase == 'undo' then suffix = '!arr' else return { -1, phase or '' } end
local board = KEYS[2]
local excl = board .. suffix
local page = redis.call('ZRANGE', excl, 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local bounds = board .. '!hbounds'
local with_hist = redis.call('EXISTS', bounds) == 1
local meta_key = board .. '!meta'
local with_meta = redis.call('EXISTS', meta_key) == 1
local hist = board .. '!hist'
for i = 1, #page, 2 do
  -- a member of a board with columns is "<order part>\31<player>", its companion entry "<player>\n<order part>"
  local member = page[i]
  local sep = string.find(member, '\31', 1, true)
  local player = sep and string.sub(member, sep + 1) or member
  if sep then redis.call('ZREM', board .. '!cols', player .. '\n' .. string.sub(member, 1, sep - 1)) end
  local key = redis.call('ZSCORE', board, member)
  if key and redis.call('ZREM', board, member) == 1 then
    if with_hist then
      local b = redis.call('ZRANGE', bounds, key, '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 1)[1]
      if b and tonumber(redis.call('ZINCRBY', hist, -1, b)) <= 0 then redis.call('ZREM', hist, b) end
    end
    if with_meta then
      local m = redis.call('ZRANGEBYLEX', meta_key, '[' .. player .. '\n', '(' .. player .. '\v', 'LIMIT', 0, 1)[1]
      if m then redis.call('ZREM', meta_key, m) end
    end
  end
  redis.call('ZREM', excl, member)
end
return { 0, #page / 2, redis.call('ZCARD', excl) }
