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
  only advance the offset. A record that touches several boards (ScoreUpdate.also_boards,
  leave_board) comes as several events with its offset, the later ones marked "part": they
  are applied right after the first, in this same call, or (the record already applied) not
  at all, so its boards change together. Counts (applied, duplicates) are of records.
  A tombstone (op 6) erases the player from a board's every key (generations, periods) or
  from every board: it SCANs the keys with that prefix, O(keys of the shard) in one call.

  Event ids: a game server that retries sends the same event_id again. An event whose
  (event id, board, player) was already applied within the dedup window is skipped
  (counted as a duplicate) but advances the offset. The window is measured in ingest
  time carried by the records themselves, never the wall clock, so a replay of the log
  makes exactly the same decisions. Remembered ids live in a sorted set per partition
  (score = ingest time), trimmed to the window after every call.

  Scores are sort keys (see common/src/score-encoding.ts), smaller is better:
    key = (maxPoints - points) * timeUnits + timeIdx    (higher is better)
    key = (points - minPoints) * timeUnits + timeIdx    (lower is better)
  timeIdx comes already folded by the board's tie rule. BEST keeps the better of the
  current points and the value by the board's order. An update that leaves the points
  unchanged keeps the old time (the player reached that score earlier). Results saturate
  at the board's [minPoints, maxPoints].

  Snapshot journal: while a snapshot is being read (the key KEYS[4] exists: store/src/writer/
  snapshot.ts), every member this script adds, changes or removes in a board or the dedup
  set is also recorded in the journal set KEYS[5], as "<key length>:<key><member>", so the
  snapshot can re-read exactly those members at its end; its reads of the rest stay valid
  while records flow. One EXISTS per call otherwise.

  Built from: nothing is applied unless the shard's built-from key equals the writer's
  (store/src/identity.ts: the topic id, slots and board specs the data was made with). An
  empty Redis (no offsets at all: new, or lost its data) takes the writer's value.

  Input:
    KEYS[1]        the offsets hash (partition -> last applied offset)
    KEYS[2]        this partition's dedup sorted set (member = event id, board key, player)
    KEYS[3]        the built-from key
    KEYS[4]        the snapshot flag (exists while a snapshot is read)
    KEYS[5]        the snapshot journal (a set)
    KEYS[5 + i]    the board key of event i, i = 1..n
    ARGV[1]        partition
    ARGV[2]        n, the number of events
    ARGV[3]        dedup window in ms (0 = no deduplication)
    ARGV[4]        the writer's built-from value
    ARGV[5 + (i-1)*14 .. 18 + (i-1)*14], for event i:
                   offset, playerId, op (0 NONE, 1 SET, 2 INCREMENT, 3 BEST, 5 REMOVE, 6 ERASE), value, timeIdx,
                   maxPoints, minPoints, timeUnits, ttlSeconds, eventId, ingestedAtMs,
                   lower (1: lower is better, 0: higher),
                   expireAt (Unix ms: a period's key expires then, PEXPIREAT; 0: never),
                   part (1: a further board of the previous event's record, same offset)
                   -- 14 fields, see FIELDS

  Output:
    { status, applied, skipped, lastOffset, duplicates, builtFrom }   lastOffset = the stored offset after the call
    status  0 OK
           -3 GAP    an event's offset was beyond lastOffset + 1; it and the rest were not applied
           -5 DRIFT  the shard was built from something else (builtFrom: what); nothing applied
           -8 WRONG_TYPE  a board key holds something else than a sorted set (builtFrom: the key);
                     nothing applied. Checked before any write: a Lua error midway would keep
                     the writes before it (Redis does not roll a script back) without moving
                     the offset, and a retry would apply them twice.
]]
local FIELDS = 14
local BOARDS = 5
for i = BOARDS + 1, #KEYS do
  local t = redis.call('TYPE', KEYS[i]).ok
  if t ~= 'zset' and t ~= 'none' then
    local stored_now = redis.call('HGET', KEYS[1], ARGV[1])
    return { -8, 0, 0, stored_now or '-1', 0, KEYS[i] .. ' holds a ' .. t }
  end
end
local partition = ARGV[1]
local n = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local dedup_key = KEYS[2]
local duplicates = 0
local newest_ingest = nil
local journal = redis.call('EXISTS', KEYS[4]) == 1
local function record(key, member)
  if journal then redis.call('SADD', KEYS[5], string.format('%d:', #key) .. key .. member) end
end

-- true when (event id, board, player) was applied at an ingest time within the window
local function is_duplicate(event_id, board_key, player, ingested)
  if window <= 0 or event_id == '' then return false end
  local seen = redis.call('ZSCORE', dedup_key, event_id .. '\n' .. board_key .. '\n' .. player)
  return seen ~= false and seen ~= nil and tonumber(seen) >= ingested - window
end
local stored = redis.call('HGET', KEYS[1], partition)
local applied_upto = stored and tonumber(stored) or -1
local built = redis.call('GET', KEYS[3])
if built ~= ARGV[4] then
  if built == false and redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('SET', KEYS[3], ARGV[4])
  else
    return { -5, 0, 0, string.format('%d', applied_upto), 0, built or '' }
  end
end
local applied, skipped = 0, 0
local last = applied_upto
local status = 0

-- applies event i (its offset already accepted); returns whether it was a duplicate
local function apply_one(i, base)
  local key = KEYS[BOARDS + i]
  local player = ARGV[base + 1]
  local op = tonumber(ARGV[base + 2])
  if op == 0 then return false end
  if is_duplicate(ARGV[base + 9], key, player, tonumber(ARGV[base + 10])) then return true end
  if op == 5 then
    -- a board the player leaves
    if redis.call('ZREM', key, player) == 1 then record(key, player) end
  elseif op == 6 then
    -- a tombstone: the board named (its key without a definition, then its generations and periods,
    -- "<key>#..."), or every board (value 1: the key is the boards' common prefix)
    local function erase_from(k)
      if redis.call('TYPE', k).ok == 'zset' and redis.call('ZREM', k, player) == 1 then record(k, player) end
    end
    local pattern = key .. '#*'
    if tonumber(ARGV[base + 3]) == 1 then pattern = key .. '*' else erase_from(key) end
    local cursor = '0'
    repeat
      local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
      cursor = page[1]
      for _, k in ipairs(page[2]) do erase_from(k) end
    until cursor == '0'
  else
    local value = tonumber(ARGV[base + 3])
    local time_idx = tonumber(ARGV[base + 4])
    local max_points = tonumber(ARGV[base + 5])
    local min_points = tonumber(ARGV[base + 6])
    local time_units = tonumber(ARGV[base + 7])
    local ttl = tonumber(ARGV[base + 8])
    local lower = ARGV[base + 11] == '1'

    local current = redis.call('ZSCORE', key, player)
    local old_points = nil
    if current then
      local points_idx = math.floor(tonumber(current) / time_units)
      if lower then old_points = min_points + points_idx else old_points = max_points - points_idx end
    end

    local points = value
    if old_points ~= nil then
      if op == 2 then
        points = old_points + value
      elseif op == 3 and ((not lower and old_points > value) or (lower and old_points < value)) then
        points = old_points
      end
    end
    if points > max_points then points = max_points end
    if points < min_points then points = min_points end

    if points ~= old_points then
      local points_idx = max_points - points
      if lower then points_idx = points - min_points end
      redis.call('ZADD', key, points_idx * time_units + time_idx, player)
      record(key, player)
      if ttl > 0 and redis.call('TTL', key) == -1 then
        redis.call('EXPIRE', key, ttl)
      end
      local expire_at = tonumber(ARGV[base + 12])
      if expire_at > 0 then
        -- a replay past the period's retention deletes the key here, as the clock would have
        redis.call('PEXPIREAT', key, expire_at)
      end
    end
  end
  local event_id = ARGV[base + 9]
  if window > 0 and event_id ~= '' then
    local ingested = tonumber(ARGV[base + 10])
    local remembered = event_id .. '\n' .. key .. '\n' .. player
    redis.call('ZADD', dedup_key, ingested, remembered)
    record(dedup_key, remembered)
    if newest_ingest == nil or ingested > newest_ingest then newest_ingest = ingested end
  end
  return false
end

-- whether the record of the last first part was taken in this call (its further parts follow it)
local record_taken = false
for i = 1, n do
  local base = 5 + (i - 1) * FIELDS
  local offset = tonumber(ARGV[base])
  local go = false
  if ARGV[base + 13] == '1' then
    -- a further board of the previous event's record: with it, or not at all
    go = record_taken and offset == last
  elseif offset <= last then
    skipped = skipped + 1
    record_taken = false
  elseif offset ~= last + 1 then
    status = -3
    break
  else
    record_taken = true
    last = offset
    go = true
    if tonumber(ARGV[base + 2]) ~= 0 then applied = applied + 1 end
  end
  if go and apply_one(i, base) and ARGV[base + 13] ~= '1' then
    applied = applied - 1
    duplicates = duplicates + 1
  end
end

if newest_ingest ~= nil then
  local below = '(' .. string.format('%d', newest_ingest - window)
  if journal then
    for _, gone in ipairs(redis.call('ZRANGEBYSCORE', dedup_key, '-inf', below)) do record(dedup_key, gone) end
  end
  redis.call('ZREMRANGEBYSCORE', dedup_key, '-inf', below)
end

if last > applied_upto then
  redis.call('HSET', KEYS[1], partition, string.format('%d', last))
end
return { status, applied, skipped, string.format('%d', last), duplicates }
