--[[
  Board deletion (AdminService.DeleteBoard): a deletion marker (OP_DELETE_BOARD, one in every
  partition) is recorded in the deleted-generations set, a member "<board>#<generation>\n<partition>"
  per marker (score 0); from then on this partition's records of that generation are ignored,
  and once the shard holds the markers of all its partitions the generation's keys (every
  period, window and companion key) are deleted: a SCAN, O(keys of the shard). Records of other
  partitions before their own marker still apply before that, so a replay ends the same,
  whatever the order of partitions.

  Input:  DELETED_KEY, PARTITION, BOARD_PREFIX (apply-input.lua); an event's key (the
          generation's key "<prefix>board:<board>#<generation>") and value (the number of
          partitions of the shard)
  Period closes (a board's BoardRules.close) share the set: a close marker (OP_CLOSE_PERIOD, one
  in every partition, its key the period's) is recorded as "<board>#<generation>@<period>\n<partition>",
  and from then on this partition's records of that period are ignored: the period's standings are
  frozen at the same position of the log on every shard and in every replay. The router's closer
  reads the members to learn which partitions closed the period (store/src/reader.ts).

  Output: delete_board(ev), in_deleted_generation(key), close_period(ev), in_closed_period(key)

  Every record asks both questions of its board key once any marker exists (most live clusters:
  a board with `close` rules or a league closes periods daily). The answers are kept for the call,
  by partition and key: the set changes within a call only by that call's own markers, which drop
  them. So a call pays a ZSCORE per distinct key and partition, not per record.
]]
local any_deleted = redis.call('EXISTS', DELETED_KEY) == 1
-- this call's answers (key -> boolean) of in_deleted_generation and in_closed_period, for partition
-- `of` (one local: a script's main function holds at most 200)
local KNOWN = { of = nil, deleted = {}, closed = {} }

-- forgets the answers kept: a marker was added, or another partition is being applied
function KNOWN.forget()
  KNOWN.of, KNOWN.deleted, KNOWN.closed = PARTITION, {}, {}
end

local function delete_board(ev)
  hist_flush() -- the counts changed before, written before the keys go
  local key = ev.key
  local stem = string.sub(key, #BOARD_PREFIX + 1)
  local member = stem .. '\n' .. PARTITION
  if not redis.call('ZSCORE', DELETED_KEY, member) then
    redis.call('ZADD', DELETED_KEY, 0, member)
    record(DELETED_KEY, member)
    any_deleted = true
    KNOWN.forget()
  end
  if redis.call('ZLEXCOUNT', DELETED_KEY, '[' .. stem .. '\n', '(' .. stem .. '\v') < ev.value then return end
  redis.call('UNLINK', key)
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', key .. '[@~!]*', 'COUNT', 1000)
    cursor = page[1]
    if #page[2] > 0 then redis.call('UNLINK', unpack(page[2])) end
  until cursor == '0'
  forget_expiries()
  forget_bounds()
end

-- whether board key `key` belongs to a generation whose deletion marker this partition applied
local function in_deleted_generation(key)
  if not any_deleted then return false end
  if KNOWN.of ~= PARTITION then KNOWN.forget() end
  local known = KNOWN.deleted[key]
  if known ~= nil then return known end
  local stem = string.match(string.sub(key, #BOARD_PREFIX + 1), '^[^#@~!]*#%d+')
  known = stem ~= nil and redis.call('ZSCORE', DELETED_KEY, stem .. '\n' .. PARTITION) ~= false
  KNOWN.deleted[key] = known
  return known
end

local function close_period(ev)
  local member = string.sub(ev.key, #BOARD_PREFIX + 1) .. '\n' .. PARTITION
  if redis.call('ZSCORE', DELETED_KEY, member) then return end
  redis.call('ZADD', DELETED_KEY, 0, member)
  record(DELETED_KEY, member)
  any_deleted = true
  KNOWN.forget()
end

-- whether period key `key` ("<prefix>board:<board>#<generation>@<period>") was closed in this partition
-- (a league's cohort, "...@<period>/<cohort>", closes with its period: model/src/leagues.ts)
local function in_closed_period(key)
  if not any_deleted then return false end
  if KNOWN.of ~= PARTITION then KNOWN.forget() end
  local known = KNOWN.closed[key]
  if known ~= nil then return known end
  known = false
  if string.find(key, '@', #BOARD_PREFIX + 1, true) then
    local stem = string.sub(key, #BOARD_PREFIX + 1)
    local cohort = string.find(stem, '/', 1, true)
    if cohort then stem = string.sub(stem, 1, cohort - 1) end
    known = redis.call('ZSCORE', DELETED_KEY, stem .. '\n' .. PARTITION) ~= false
  end
  KNOWN.closed[key] = known
  return known
end
