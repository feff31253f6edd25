--[[
  The cut-over of a shard's move in place (writer/move.ts), in one atomic step: the shard
  becomes built from the new placement's slots, its heartbeat stops serving the old placement
  (the node serves the new one once it has read it and caught up: heartbeat.lua), the arrivals
  become plain members (their "!arr" companions go) and the members of the lost slots become
  the readers' exclusion ("!dep", phase 'drain', read-header.lua) until the shard node has
  deleted them (move-drain.lua). The lost partitions' offsets, dedup sets and board deletion
  markers go: the shard no longer applies them.

  Input:
    KEYS[1]  the move
    KEYS[2]  the built-from key
    KEYS[3]  the heartbeat key
    KEYS[4]  the offsets hash
    KEYS[5]  the board deletion markers ("<prefix>board:~deleted")
    ARGV[1]  built-from before (checked)
    ARGV[2]  the new placement's stamp of the shard (for the heartbeat's reason)
    ARGV[3]  the board keys' pattern ("<escaped prefix>board:*")
    ARGV[4]  the dedup keys' prefix ("<prefix>dedup:")
  Output:
    { 0, arrival keys dropped }   or { -1, phase } (not moving), { -5, builtFrom }: nothing changed
]]
local move = redis.call('HMGET', KEYS[1], 'phase', 'from', 'to', 'dep')
if move[1] ~= 'moving' then return { -1, move[1] or '' } end
local built = redis.call('GET', KEYS[2])
if built ~= ARGV[1] or move[2] ~= ARGV[1] then return { -5, built or '' } end
redis.call('SET', KEYS[2], move[3])
local ttl = redis.call('PTTL', KEYS[3])
if ttl <= 0 then ttl = 10000 end
redis.call('SET', KEYS[3], '!the shard\'s slots moved (AdminService.Reshard): its node is moving to the new placement\n' .. ARGV[2], 'PX', ttl)
for p in string.gmatch(move[4], '%d+') do
  redis.call('HDEL', KEYS[4], p)
  redis.call('UNLINK', ARGV[4] .. p)
  for _, m in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
    if string.sub(m, -(#p + 1)) == '\n' .. p then redis.call('ZREM', KEYS[5], m) end
  end
end
local dropped = 0
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[3] .. '!arr', 'COUNT', 1000)
  cursor = page[1]
  if #page[2] > 0 then
    redis.call('UNLINK', unpack(page[2]))
    dropped = dropped + #page[2]
  end
until cursor == '0'
redis.call('HSET', KEYS[1], 'phase', 'drain')
return { 0, dropped }
