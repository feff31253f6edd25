--[[
  A league's period as the shard of its partition holds it (apply-leagues.lua): a player's cohort
  code and tier score, whether the period's close is settled, and the players placed per group.

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  the placements "<prefix>board:<period key>!place"
    KEYS[3]  the groups "<prefix>board:<period key>!fill"
    KEYS[4]  the tiers "<prefix>board:<league key>!tier"
    KEYS[5]  the settled periods "<prefix>board:<league key>!settled"
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  player id ('' for none)
    ARGV[3]  the period's name
  Output:
    { status, code, tier, settled, group1, players1, group2, players2, ... }   code: the player's
    cohort code, -1 when it is not placed (or no player); tier: its tier score, -1 when it has
    none; settled: 1 when the period is settled, else 0; then every group "t<tier>b<bracket>"
    with its players placed
  Cost: O(1) plus the groups (tiers x brackets at most).
]]
local status = check_shard(KEYS[1], ARGV[1])
if status ~= READ_OK then return { status } end
local player = ARGV[2]
local code, tier = '-1', '-1'
if player ~= '' then
  code = redis.call('ZSCORE', KEYS[2], player) or '-1'
  tier = redis.call('ZSCORE', KEYS[4], player) or '-1'
end
local settled = redis.call('ZSCORE', KEYS[5], ARGV[3]) and 1 or 0
local out = { READ_OK, code, tier, settled }
local groups = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
for i = 1, #groups do out[#out + 1] = groups[i] end
return out
