--[[
  A tournament as this shard holds it (apply-tournaments.lua): the members its partition's joins
  admitted, whether a player is one of them, and the player's attempts used (its own shard's).

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  the members "<prefix>board:<period key>!join"
    KEYS[3]  the attempts "<prefix>board:<period key>!att"
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  player id ('' for none)
  Output:
    { status, members, joined, attempts }   members: the join set's size on this shard; joined: 1
    when the player is in it, else 0; attempts: the player's attempts used, -1 when it holds none
  Cost: O(1).
]]
local status = check_shard(KEYS[1], ARGV[1])
if status ~= READ_OK then return { status } end
local player = ARGV[2]
local joined, attempts = 0, -1
if player ~= '' then
  if redis.call('ZSCORE', KEYS[2], player) then joined = 1 end
  attempts = tonumber(redis.call('ZSCORE', KEYS[3], player) or '-1')
end
return { READ_OK, redis.call('ZCARD', KEYS[2]), joined, attempts }
