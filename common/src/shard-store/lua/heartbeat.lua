--[[
  The shard node's heartbeat, set only while the shard's data can be served.

  Reads are served only while the heartbeat key exists (see read-header.lua). The shard
  node calls this script every third of the heartbeat TTL with, for each of its
  partitions, the offset it knows it has applied and the log's end. The key is set when
    - no partition's stored offset is below what the node knows it applied: otherwise
      Redis lost data (restarted empty, restored an old file, flushed) -> LOST, the key
      is deleted at once and the node replays from the stored offsets; and
    - if the node is still catching up (must_catch_up = 1), every partition is within
      max_lag records of the log's end -> else LAGGING, and the key is deleted.
  Once caught up the node passes must_catch_up = 0, so a burst of writes never makes a
  healthy shard flap; it passes 1 again after LOST or a rewind.

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  offsets hash
    ARGV[1]  shard id (the heartbeat's value)
    ARGV[2]  TTL in ms
    ARGV[3]  must_catch_up (0 or 1)
    ARGV[4]  max_lag (records)
    ARGV[5]  n, then n triples: partition, known applied offset (-1 none), log end offset
             (the offset the next record will get)
  Output:
    { status, lag, lostPartition1, storedOffset1, ... }
    status  0 OK (heartbeat set)   -4 LAGGING   -5 LOST (pairs of partition, stored offset follow)
    lag     records behind the log's end, summed over the partitions
]]
local must_catch_up = ARGV[3] == '1'
local max_lag = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
local lag, lagging, lost = 0, false, {}
for i = 0, n - 1 do
  local partition = ARGV[6 + i * 3]
  local known = tonumber(ARGV[7 + i * 3])
  local log_end = tonumber(ARGV[8 + i * 3])
  local stored = redis.call('HGET', KEYS[2], partition)
  stored = stored and tonumber(stored) or -1
  if stored < known then
    lost[#lost + 1] = partition
    lost[#lost + 1] = string.format('%d', stored)
  end
  local behind = log_end - 1 - stored
  if behind > 0 then lag = lag + behind end
  if behind > max_lag then lagging = true end
end
if #lost > 0 then
  redis.call('DEL', KEYS[1])
  local out = { -5, lag }
  for i = 1, #lost do out[#out + 1] = lost[i] end
  return out
end
if must_catch_up and lagging then
  redis.call('DEL', KEYS[1])
  return { -4, lag }
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { 0, lag }
