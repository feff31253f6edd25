--[[
  One player's sort key on a board.

  Input:
    KEYS[1]  board key
    KEYS[2]  heartbeat key
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  player id
  Output:
    { status, key }   key is false (nil) when the player has no entry
  Cost: O(1).
]]
local status, age, bound = check_shard(KEYS[2], ARGV[1])
if status ~= READ_OK then return { status, age, bound } end
return read_entry(KEYS[1], ARGV[2])
