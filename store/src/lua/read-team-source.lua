--[[
  What a team deriver reads of members on their own shard (model/src/teams.ts): each member's
  team, the teams it left and its points' sort key on the source board, with the applied offset
  of its partition, all at one instant (one script), so the points are the member's as of that
  offset.

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  the offsets hash (partition -> last applied offset)
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  the board keys' prefix ("<prefix>board:")
    ARGV[3..] per member, 4 values: the team board's stored name, the source board's stored name,
             the player, its partition
  Output:
    { status, team1, key1, left1, offset1, team2, ... }   team: '' for none; key: the sort key
    on the source board, '' for no entry; left: the teams it left, joined by '\n' (its current team
    left out); offset: the partition's last applied offset, '-1' for none
  Cost: O(log n) per member.
]]
local status = check_shard(KEYS[1], ARGV[1])
if status ~= READ_OK then return { status } end
local prefix = ARGV[2]
local out = { READ_OK }
for i = 3, #ARGV, 4 do
  local teams, source, player, partition = prefix .. ARGV[i], prefix .. ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local from, to = '[' .. player .. '\n', '(' .. player .. '\v'
  local now = redis.call('ZRANGEBYLEX', teams .. '!team', from, to, 'LIMIT', 0, 1)[1]
  local team = now and string.sub(now, #player + 2) or ''
  local left = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', teams .. '!left', from, to)) do
    local t = string.sub(m, #player + 2)
    if t ~= team then left[#left + 1] = t end
  end
  out[#out + 1] = team
  out[#out + 1] = redis.call('ZSCORE', source, player) or ''
  out[#out + 1] = table.concat(left, '\n')
  out[#out + 1] = redis.call('HGET', KEYS[2], partition) or '-1'
end
return out
