--[[
  A page of a board key's members of the slots a moving shard loses, copied into the key's
  "!dep" companion (writer/move.ts lists them with ZSCAN and picks them by slot). Each member
  is copied with its current sort key, read here, or not at all when it is gone: the apply
  script mirrors every change made since the move began (apply-events.lua), so once every
  member the scan saw has been through here, "!dep" holds exactly the key's members of those
  slots. The companion expires with its key.

  Input:
    KEYS[1]  the move
    KEYS[2]  the board key
    ARGV[1..] members
  Output:
    { 0, copied }   or { -1 } when the move is not in phase 'moving' (nothing copied)
]]
if redis.call('HGET', KEYS[1], 'phase') ~= 'moving' then return { -1 } end
local dep = KEYS[2] .. '!dep'
local copied = 0
for i = 1, #ARGV do
  local s = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if s then
    redis.call('ZADD', dep, s, ARGV[i])
    copied = copied + 1
  end
end
if copied > 0 then
  local at = redis.call('PEXPIRETIME', KEYS[2])
  if at > 0 then redis.call('PEXPIREAT', dep, at) end
end
return { 0, copied }
