--[[
  A team as its shard holds it (apply-teams.lua): its entry's sort key and its members'
  contributions, at one instant.

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  the team board's key "<prefix>board:<team board>"
    KEYS[3]  the team's members "<prefix>board:<team board>!m:<team>"
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  the team
  Output:
    { status, key, member1, points1, member2, points2, ... }   key: the team's sort key, '' when it
    has no entry; members by points ascending, then member bytes
  Cost: O(members).
]]
local status = check_shard(KEYS[1], ARGV[1])
if status ~= READ_OK then return { status } end
local out = { READ_OK, redis.call('ZSCORE', KEYS[2], ARGV[2]) or '' }
for _, v in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')) do out[#out + 1] = v end
return out
