--[[
  A move in place given up before its cut-over (writer/move.ts), in one atomic step: the
  arrivals stay the readers' exclusion ("!arr", phase 'undo', read-header.lua) until the shard
  node has deleted them (move-drain.lua); the copies of the members to lose ("!dep") go; the
  gained partitions' offsets, dedup sets and board deletion markers go. The shard keeps serving
  the placement it had throughout.

  Input:
    KEYS[1]  the move
    KEYS[2]  the offsets hash
    KEYS[3]  the board deletion markers
    ARGV[1]  the board keys' pattern ("<escaped prefix>board:*")
    ARGV[2]  the dedup keys' prefix
  Output:
    { 0 }   or { -1, phase } when the move is not in phase 'moving' (nothing changed)
]]
local move = redis.call('HMGET', KEYS[1], 'phase', 'arr')
if move[1] ~= 'moving' then return { -1, move[1] or '' } end
redis.call('HSET', KEYS[1], 'phase', 'undo')
forget_partitions(move[2], KEYS[2], KEYS[3], ARGV[2])
unlink_matching(ARGV[1] .. '!dep')
return { 0 }
