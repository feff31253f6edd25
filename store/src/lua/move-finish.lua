--[[
  Ends a drained move (writer/move.ts): once no board key has a companion left, the move's
  record goes and the shard is an ordinary one again.

  Input:
    KEYS[1]  the move
    ARGV[1]  the board keys' pattern ("<escaped prefix>board:*")
  Output:
    { 0 } ended; { 1, key } a companion is left (drain it first); { -1, phase } not draining
]]
local phase = redis.call('HGET', KEYS[1], 'phase')
local suffix
if phase == 'drain' then suffix = '!dep' elseif phase == 'undo' then suffix = '!arr' else return { -1, phase or '' } end
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1] .. suffix, 'COUNT', 1000)
  cursor = page[1]
  if #page[2] > 0 then return { 1, page[2][1] } end
until cursor == '0'
redis.call('DEL', KEYS[1])
return { 0 }
