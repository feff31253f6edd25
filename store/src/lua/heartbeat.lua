--[[
  The shard node's heartbeat, set only while the shard's data can be served.

  Reads are served only while the heartbeat key exists (see read-header.lua). The shard
  node calls this script every third of the heartbeat TTL with, for each of its
  partitions, the offset it knows it has applied and the log's end.
    - A partition whose stored offset is below what the node knows it applied has lost
      data (Redis restarted empty, restored an old file, was flushed, or a rebuild was
      swapped in a little behind): it is reported, the node rewinds it to the stored
      offset, and the shard must catch up again, as below.
    - While the node must catch up (must_catch_up = 1, after start or a rewind, or when
      data was lost), the key is set only if every partition is within max_lag records
      of the log's end; otherwise LAGGING and the key is deleted at once, so a Redis that
      lost its data is never served while it refills.
  Once caught up the node passes must_catch_up = 0, so a burst of writes never makes a
  healthy shard flap.

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
    status  0 OK (heartbeat set)   -4 LAGGING (heartbeat deleted)
    lag     records behind the log's end, summed over the partitions
    then pairs of partition, stored offset for each partition that lost data
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
local out = { 0, lag }
for i = 1, #lost do out[#out + 1] = lost[i] end
if (must_catch_up or #lost > 0) and lagging then
  redis.call('DEL', KEYS[1])
  out[1] = -4
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return out
