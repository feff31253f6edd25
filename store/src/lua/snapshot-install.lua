--[[
  Makes a loaded snapshot a shard's live data, in one atomic step (writer/snapshot.ts).

  The snapshot's keys were restored beforehand under a temporary prefix of the same database
  (`<prefix>snapshot-load:<id>:`), at leisure, while the live data stayed as it was. This
  script replaces the live boards and dedup sets by them (RENAME: no copy) and sets the
  applied offsets and built-from to the snapshot's, but only when that moves every partition
  forward or leaves it where it is: the snapshot is the state after applying the log up to its
  offsets, so it may replace any state that has applied less (an empty Redis, a partial
  refill, an older copy), never one that has applied more.

  Not declared in KEYS: the live board and dedup keys (found with KEYS <prefix>board:* and
  <prefix>dedup:*; a shard's Redis holds few keys) and the temporary keys (their names come in
  ARGV). Like rebuild-swap.lua, this script is for a shard's own, dedicated Redis.

  Input:
    KEYS[1]  offsets hash
    KEYS[2]  built-from key
    ARGV[1]  the snapshot's built-from value (must equal the key's, unless the key is unset)
    ARGV[2]  the live key prefix, ARGV[3] the same escaped for a KEYS pattern
    ARGV[4]  the temporary key prefix
    ARGV[5]  n, then n pairs: partition, the snapshot's last applied offset
    then     m, then m pairs: key name (without prefix), 1 if the key had an expiry else 0

  Output:
    { 0 }                         installed
    { -5, builtFrom }             DRIFT: the live data is built from something else
    { -9, partition, offset }     AHEAD: the live data applied more of this partition
    { -10, name }                 MISSING: a loaded key is gone (a SWAPDB or flush during the load)
]]
local built = redis.call('GET', KEYS[2])
if built and built ~= ARGV[1] then return { -5, built } end
local live, pattern, temp = ARGV[2], ARGV[3], ARGV[4]
local n = tonumber(ARGV[5])
local target = {}
for i = 0, n - 1 do
  target[ARGV[6 + i * 2]] = tonumber(ARGV[7 + i * 2])
end
local stored = redis.call('HGETALL', KEYS[1])
for i = 1, #stored, 2 do
  local mine = target[stored[i]] or -1
  if tonumber(stored[i + 1]) > mine then return { -9, stored[i], stored[i + 1] } end
end
local base = 6 + n * 2
local m = tonumber(ARGV[base])
local names = {}
for i = 0, m - 1 do
  local name, expiring = ARGV[base + 1 + i * 2], ARGV[base + 2 + i * 2]
  if redis.call('EXISTS', temp .. name) == 1 then
    names[#names + 1] = name
  elseif expiring ~= '1' then
    return { -10, name }
  end -- else it expired since it was loaded: the live data would not hold it either
end
for _, kind in ipairs({ 'board:*', 'dedup:*' }) do
  for _, key in ipairs(redis.call('KEYS', pattern .. kind)) do redis.call('UNLINK', key) end
end
for _, name in ipairs(names) do
  redis.call('RENAME', temp .. name, live .. name)
end
redis.call('DEL', KEYS[1])
for partition, offset in pairs(target) do
  if offset >= 0 then redis.call('HSET', KEYS[1], partition, string.format('%d', offset)) end
end
redis.call('SET', KEYS[2], ARGV[1])
return { 0 }
