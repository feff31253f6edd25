--[[
  Applies a batch of score events from one partition of the score log, exactly once.

  The partition's last applied offset lives in the same Redis as the boards and is
  moved in the same atomic script call as the effects, so a batch delivered twice
  (a shard node restarted between applying and committing to Kafka, a rebalance, a
  replay) changes nothing the second time: events at or below the stored offset are
  skipped. Events must come in offset order, and the first new one must be exactly
  the stored offset + 1: anything else is a GAP, reported without applying it, and
  the caller rewinds the consumer to the stored offset + 1. So a Redis that lost data
  (or a fresh one) is refilled from the log instead of silently missing records.
  Records the shard node could not use (undecodable or invalid) come as op 0: they
  only advance the offset.

  Scores are sort keys (see common/src/score-encoding.ts):
    key = (maxPoints - points) * timeUnits + timeIdx, smaller is better.
  An update that leaves the points unchanged keeps the old time (the player reached
  that score earlier). Results saturate at the board's [minPoints, maxPoints].

  Input:
    KEYS[1]        the offsets hash (partition -> last applied offset)
    KEYS[1 + i]    the board key of event i, i = 1..n
    ARGV[1]        partition
    ARGV[2]        n, the number of events
    ARGV[3 + (i-1)*9 .. 11 + (i-1)*9], for event i:
                   offset, playerId, op (0 NONE, 1 SET, 2 INCREMENT, 3 BEST), value, timeIdx,
                   maxPoints, minPoints, timeUnits, ttlSeconds -- 9 fields, see FIELDS

  Output:
    { status, applied, skipped, lastOffset }   lastOffset = the stored offset after the call
    status  0 OK
           -3 GAP   an event's offset was beyond lastOffset + 1; it and the rest were not applied
]]
local FIELDS = 9
local partition = ARGV[1]
local n = tonumber(ARGV[2])
local stored = redis.call('HGET', KEYS[1], partition)
local applied_upto = stored and tonumber(stored) or -1
local applied, skipped = 0, 0
local last = applied_upto
local status = 0

for i = 1, n do
  local base = 3 + (i - 1) * FIELDS
  local offset = tonumber(ARGV[base])
  if offset <= last then
    skipped = skipped + 1
  elseif offset ~= last + 1 then
    status = -3
    break
  elseif tonumber(ARGV[base + 2]) == 0 then
    last = offset
  else
    local key = KEYS[1 + i]
    local player = ARGV[base + 1]
    local op = tonumber(ARGV[base + 2])
    local value = tonumber(ARGV[base + 3])
    local time_idx = tonumber(ARGV[base + 4])
    local max_points = tonumber(ARGV[base + 5])
    local min_points = tonumber(ARGV[base + 6])
    local time_units = tonumber(ARGV[base + 7])
    local ttl = tonumber(ARGV[base + 8])

    local current = redis.call('ZSCORE', key, player)
    local old_points = nil
    if current then
      old_points = max_points - math.floor(tonumber(current) / time_units)
    end

    local points = value
    if old_points ~= nil then
      if op == 2 then
        points = old_points + value
      elseif op == 3 and old_points > value then
        points = old_points
      end
    end
    if points > max_points then points = max_points end
    if points < min_points then points = min_points end

    if points ~= old_points then
      redis.call('ZADD', key, (max_points - points) * time_units + time_idx, player)
      if ttl > 0 and redis.call('TTL', key) == -1 then
        redis.call('EXPIRE', key, ttl)
      end
    end
    applied = applied + 1
    last = offset
  end
end

if last > applied_upto then
  redis.call('HSET', KEYS[1], partition, string.format('%d', last))
end
return { status, applied, skipped, string.format('%d', last) }
