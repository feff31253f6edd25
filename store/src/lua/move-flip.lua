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
forget_partitions(move[4], KEYS[4], KEYS[5], ARGV[4])
local dropped = unlink_matching(ARGV[3] .. '!arr')
redis.call('HSET', KEYS[1], 'phase', 'drain')
return { 0, dropped }
