--[[
  Starts moving a shard's slots in place (writer/move.ts): from this call on, the apply script
  mirrors every entry of a partition the shard gains into its board key's "!arr" companion and
  of a partition it loses into "!dep" (apply-events.lua), and readers leave "!arr" out
  (read-header.lua). Refused while another move of the shard is recorded, while a snapshot is
  being read (it would list the companions and the arrivals as the shard's state), or when the
  shard is not built from what the move starts from.

  Input:
    KEYS[1]  the move ("<prefix>move")
    KEYS[2]  the built-from key
    KEYS[3]  the snapshot flag ("<prefix>snapshot:reading")
    KEYS[4]  the offsets hash
    ARGV[1]  built-from before the move (the shard's now)
    ARGV[2]  built-from after it
    ARGV[3]  the partitions gained, ",p1,p2,...," (",," none)
    ARGV[4]  the partitions lost, the same way
  Output:
    { 0 } started
    { -1, phase }      a move is recorded already
    { -5, builtFrom }  the shard is built from something else
    { -9 }             a snapshot is being read: try again later
    { -10, partition } the shard already holds offsets of a partition it is to gain
]]
local phase = redis.call('HGET', KEYS[1], 'phase')
if phase then return { -1, phase } end
local built = redis.call('GET', KEYS[2])
if built ~= ARGV[1] then return { -5, built or '' } end
if redis.call('EXISTS', KEYS[3]) == 1 then return { -9 } end
for p in string.gmatch(ARGV[3], '%d+') do
  if redis.call('HEXISTS', KEYS[4], p) == 1 then return { -10, p } end
end
redis.call('HSET', KEYS[1], 'phase', 'moving', 'from', ARGV[1], 'to', ARGV[2], 'arr', ARGV[3], 'dep', ARGV[4])
return { 0 }
