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
  A tombstone (op 6) erases the player from a board's every key (generations, periods,
  windows, metadata) or from every board: it SCANs the keys with that prefix, O(keys of the
  shard); and drops the player's remembered event ids of those boards from the partition's
  dedup set, O(its size).
  A board deletion marker (op 7, AdminService.DeleteBoard: one in every partition) is recorded
  in KEYS[6]; from then on this partition's records of that generation are ignored, and once
  the shard holds the markers of all its partitions the generation's keys are deleted (a SCAN:
  O(keys of the shard)). Records of other partitions before their own marker still apply
  before that, so a replay ends the same, whatever the order of partitions.

  Windows (common/src/windows.ts): on a board with windows, an event whose period score
  changed (or that left the period) recomputes the player's entries of the windows ending in
  its period P0 and the n - 1 periods after it, from the player's scores in the 2N - 1 periods
  the event lists around P0: BEST is the smallest part key (the board's own encoding); SUM
  decodes each part into points and time units, adds the points, keeps the latest time, and
  encodes the pair in the window's encoding, the time counted from the window's first time
  unit (clamped to the encoding's last unit). A window entry that does not change is not
  written; one with no part left is removed.

  Histograms (BoardRules.histogram_bounds): a board key with a histogram has two companions:
  "<key>!hbounds", bucket i -> the first sort key of bucket i (written once, from the event's
  bounds, when the key gets its first entry), and "<key>!hist", bucket i -> its entries. Every
  entry added, moved or removed moves one count: its bucket is the hbounds member with the greatest
  score <= its key (ZRANGE ... BYSCORE REV LIMIT 0 1), so an erasure, which does not know the
  board's rules, keeps the counts right too. They expire with their key.

  Changes: while the change flag KEYS[8] exists (routers with watchers keep it alive: router/src/watch),
  every entry added, moved or removed appends to the change stream KEYS[7] its board key (k), the
  player (p) and its sort keys before (o) and after (n), '' when absent, in the order they happen,
  trimmed to about CHANGES_KEPT entries. The stream is this shard's, as of what it applied: not the
  log's state (no snapshot holds it; a rebuild's swap leaves it behind, and routers then read again).

  Rank reports (SubmitScoresRequest.report_ranks): an event with a report id appends to the list
  "<prefix>rank-change:<id>" (kept 60 s; not the log's state: no snapshot holds it) its board's
  stored name, the player's key before ('' if none) and the members ahead of it then, its key
  after and the members ahead of it, and the board's size on this shard: 6 strings per board,
  read in this same script around the event's own change. A duplicate reports no change.

  Metadata (ScoreUpdate.metadata): an event that carries it keeps it with the player's entry,
  whether or not the score changed, in the board key's companion "<key>!meta" (see set_meta)
  and in those of the windows' entries; an entry removed (a board left, a window emptied, an
  erasure) loses its metadata. Those keys are checked for their type with the others when any
  event carries metadata; they expire with their board key.

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

  Moves (store/src/writer/move.ts): while "<prefix>move" (KEYS[9]) is in phase 'moving', the
  shard's slots change in place: its own node applies the slots it has (and some it will lose),
  and the move's replay applies the slots it gains, into the same board keys. The hash names
  the partitions gained ("arr") and lost ("dep"); every entry this script adds, moves or removes
  in a board key for one of those partitions is mirrored into the key's companion "<key>!arr" or
  "<key>!dep" (same member, same sort key, same expiry), so each companion stays exactly the
  board's members of those slots, which the readers leave out (read-header.lua). Arrivals are
  not in the change stream: no reader of this placement sees them. A rank report counts the
  members ahead without the exclusion the readers use. One HMGET per call otherwise.

  Built from: nothing is applied unless the shard's built-from key equals the writer's
  (store/src/identity.ts: the topic id, slots and board specs the data was made with). An
  empty Redis (no offsets at all: new, or lost its data) takes the writer's value.

  Input:
    KEYS[1]        the offsets hash (partition -> last applied offset)
    KEYS[2]        this partition's dedup sorted set (member = event id, board key, player)
    KEYS[3]        the built-from key
    KEYS[4]        the snapshot flag (exists while a snapshot is read)
    KEYS[5]        the snapshot journal (a set)
    KEYS[6]        the deleted generations: a sorted set of "<board>#<generation>\n<partition>", one
                   member per deletion marker applied (score 0)
    KEYS[7]        the change stream (a Redis stream; see "Changes" above)
    KEYS[8]        the change flag: changes are added to the stream only while it exists
    KEYS[9]        the move ("<prefix>move": see Moves above)
    KEYS[9 + i]    the board key of event i, i = 1..n (a deletion marker: "<prefix>board:<board>#<generation>")
    ARGV[1]        partition
    ARGV[2]        n, the number of events
    ARGV[3]        dedup window in ms (0 = no deduplication)
    ARGV[4]        the writer's built-from value
    ARGV[5 + (i-1)*18 .. 22 + (i-1)*18], for event i:
                   offset, playerId, op (0 NONE, 1 SET, 2 INCREMENT, 3 BEST, 5 REMOVE, 6 ERASE, 7 DELETE BOARD),
                   value (DELETE BOARD: the number of partitions of the shard), timeIdx,
                   maxPoints, minPoints, timeUnits, ttlSeconds, eventId, ingestedAtMs,
                   lower (1: lower is better, 0: higher),
                   expireAt (Unix ms: a period's key expires then, PEXPIREAT; 0: never),
                   part (1: a further board of the previous event's record, same offset),
                   windows (0: none; else the ARGV index w of its windows' description),
                   metadata ('' keeps the entry's; else kept with it, and with its windows'),
                   report ('' or an id: keep the player's position before and after, see below),
                   histogram (0: none; else the ARGV index h of its bounds: n, then n keys ascending)
                   -- 18 fields, see FIELDS
    ARGV[w ..]     an event's windows, after every event's fixed fields:
                   kbase (KEYS index of the first of the 2N - 1 period keys P(-(N-1)) .. P(N-1)),
                   N, tie (0 earliest, 1 latest, 2 player id: how the board's keys fold time), M,
                   then M windows, each: combine (1 SUM, 2 BEST), n, wkbase (KEYS index of its key
                   ending in P0; the keys ending in P1 .. P(n-1) follow), maxPoints, minPoints,
                   timeUnits (the window's encoding, SUM), hist (0, or the ARGV index of its
                   histogram bounds, as an event's), then n pairs: base (the first time unit of the
                   window ending in P(j)), expireAt (its expiry, Unix ms)
    KEYS[kbase ..] the period and window keys of the events' windows, after the board keys

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
local FIELDS = 18
local BOARDS = 9
local META = '!meta'
local HIST, HBOUNDS = '!hist', '!hbounds'
-- metadata and histograms are written only to the companions of declared keys: check those too when any is
local with_meta, with_hist = false, false
for i = 1, tonumber(ARGV[2]) do
  if ARGV[5 + (i - 1) * FIELDS + 15] ~= '' then with_meta = true end
  if ARGV[5 + (i - 1) * FIELDS + 17] ~= '0' then with_hist = true end
end
for i = BOARDS + 1, #KEYS do
  local names = { KEYS[i] }
  if with_meta then names[#names + 1] = KEYS[i] .. META end
  if with_hist then
    names[#names + 1] = KEYS[i] .. HIST
    names[#names + 1] = KEYS[i] .. HBOUNDS
  end
  for _, k in ipairs(names) do
    local t = redis.call('TYPE', k).ok
    if t ~= 'zset' and t ~= 'none' then
      local stored_now = redis.call('HGET', KEYS[1], ARGV[1])
      return { -8, 0, 0, stored_now or '-1', 0, k .. ' holds a ' .. t }
    end
  end
end
local partition = ARGV[1]
local n = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local dedup_key = KEYS[2]
local duplicates = 0
local newest_ingest = nil
local journal = redis.call('EXISTS', KEYS[4]) == 1
local deleted_key = KEYS[6]
local any_deleted = redis.call('EXISTS', deleted_key) == 1
local board_prefix = string.sub(KEYS[1], 1, #KEYS[1] - #'offsets') .. 'board:' 
local changes_on = redis.call('EXISTS', KEYS[8]) == 1
local CHANGES_KEPT = 100000
-- Moves (see the header): the companion this partition's entries are mirrored into, and the readers' exclusion
local move = redis.call('HMGET', KEYS[9], 'phase', 'arr', 'dep')
local mirror_into, excluded = false, false
if move[1] == 'moving' then
  excluded = '!arr'
  if move[2] and string.find(move[2], ',' .. ARGV[1] .. ',', 1, true) then mirror_into = '!arr'
  elseif move[3] and string.find(move[3], ',' .. ARGV[1] .. ',', 1, true) then mirror_into = '!dep' end
elseif move[1] == 'drain' then
  excluded = '!dep'
elseif move[1] == 'undo' then
  excluded = '!arr'
end
if mirror_into == '!arr' then changes_on = false end
-- after any change of the player's entry of board `key` (its expiry included): the same in its companion
local function mirror(key, player)
  if not mirror_into then return end
  local m = key .. mirror_into
  local s = redis.call('ZSCORE', key, player)
  if not s then
    redis.call('ZREM', m, player)
    return
  end
  redis.call('ZADD', m, s, player)
  local at = redis.call('PEXPIRETIME', key)
  if at > 0 then redis.call('PEXPIREAT', m, at) else redis.call('PERSIST', m) end
end
-- memcmp-style byte order (Lua's < uses strcoll, which is locale-dependent)
local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
-- ZRANK of `player` (at sort key `at`) on `key`, without the readers' exclusion (read-header.lua's ahead_of)
local function rank_seen(key, player, at)
  local n = redis.call('ZRANK', key, player)
  local e = excluded and key .. excluded
  if not e or redis.call('EXISTS', e) == 0 then return n end
  local lo = redis.call('ZCOUNT', e, '-inf', '(' .. at)
  local hi = redis.call('ZCOUNT', e, '-inf', at)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local m = redis.call('ZRANGE', e, mid, mid)[1]
    if bytes_less(m, player) then lo = mid + 1 else hi = mid end
  end
  return n - lo
end
local function card_seen(key)
  local e = excluded and key .. excluded
  return redis.call('ZCARD', key) - (e and redis.call('ZCARD', e) or 0)
end
-- Changes (see the header): one stream entry per entry that is added, moves or goes, while watched
local function changed(key, player, old, new)
  if not changes_on then return end
  local o = old and string.format('%.17g', tonumber(old)) or ''
  local n = new and string.format('%.17g', tonumber(new)) or ''
  redis.call('XADD', KEYS[7], 'MAXLEN', '~', CHANGES_KEPT, '*', 'k', key, 'p', player, 'o', o, 'n', n)
end

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

-- Metadata: the companion sorted set "<board key>!meta" holds one member "<player>\n<metadata>"
-- per player (score 0), found by its lexical range: player ids hold no control characters, so
-- [player\n, player\v) holds exactly that player's member. O(log n) per lookup.
local function meta_member(meta_key, player)
  return redis.call('ZRANGEBYLEX', meta_key, '[' .. player .. '\n', '(' .. player .. '\v', 'LIMIT', 0, 1)[1]
end

-- keeps `md` with the player's entry of board `key` (expiring with it when expire_at > 0)
local function set_meta(key, player, md, expire_at)
  local meta_key = key .. META
  local old = meta_member(meta_key, player)
  local member = player .. '\n' .. md
  if old == member then return end
  if old then
    redis.call('ZREM', meta_key, old)
    record(meta_key, old)
  end
  redis.call('ZADD', meta_key, 0, member)
  record(meta_key, member)
  if expire_at > 0 then redis.call('PEXPIREAT', meta_key, expire_at) end
end

-- Histograms (see the header): gives `key` its bucket bounds (ARGV[h]: n, then n keys) unless it has them.
local function hist_ensure(key, h, expire_at)
  if h == 0 then return end
  local bounds = key .. HBOUNDS
  if redis.call('EXISTS', bounds) == 1 then return end
  for i = 1, tonumber(ARGV[h]) do
    redis.call('ZADD', bounds, ARGV[h + i], tostring(i - 1))
    record(bounds, tostring(i - 1))
  end
  if expire_at > 0 then
    redis.call('PEXPIREAT', bounds, expire_at)
    redis.call('PEXPIREAT', key .. HIST, expire_at)
  end
end

-- moves one entry of `key` from sort key `old` to `new` (either nil/false: added, removed) in its histogram
local function hist_move(key, old, new, expire_at)
  local bounds = key .. HBOUNDS
  if redis.call('EXISTS', bounds) == 0 then return end
  local hist = key .. HIST
  local function bucket(k) return redis.call('ZRANGE', bounds, k, '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 1)[1] end
  local from = old and bucket(old)
  local to = new and bucket(new)
  if from == to then return end
  if from then
    if tonumber(redis.call('ZINCRBY', hist, -1, from)) <= 0 then redis.call('ZREM', hist, from) end
    record(hist, from)
  end
  if to then
    redis.call('ZINCRBY', hist, 1, to)
    record(hist, to)
    if expire_at and expire_at > 0 then redis.call('PEXPIREAT', hist, expire_at) end
  end
end

-- an entry of `key` (player `player`) added, moved or removed (old, new: sort keys, nil when absent):
-- its histogram count moves, and watchers hear of it (the change stream)
local function entry_moved(key, player, old, new, expire_at)
  hist_move(key, old, new, expire_at)
  changed(key, player, old, new)
end

-- drops the player's metadata of board `key` (its entry left)
local function drop_meta(key, player)
  local meta_key = key .. META
  if redis.call('TYPE', meta_key).ok ~= 'zset' then return end
  local old = meta_member(meta_key, player)
  if old then
    redis.call('ZREM', meta_key, old)
    record(meta_key, old)
  end
end

-- Recomputes the player's entries of the windows described at ARGV[w] (see the header) when
-- `recompute`, and keeps `md` (when not '') with each entry there is.
local function refresh_windows(w, player, max_points, min_points, time_units, lower, recompute, md)
  local kbase, N, tie, M = tonumber(ARGV[w]), tonumber(ARGV[w + 1]), tonumber(ARGV[w + 2]), tonumber(ARGV[w + 3])
  local parts = {}
  for k = 0, recompute and 2 * N - 2 or -1 do
    local s = redis.call('ZSCORE', KEYS[kbase + k], player)
    if s then parts[k] = tonumber(s) end
  end
  local at = w + 4
  for _ = 1, M do
    local combine, n, wk = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
    local w_max, w_min, w_units = tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4]), tonumber(ARGV[at + 5])
    local w_hist = tonumber(ARGV[at + 6])
    at = at + 7
    for j = 0, n - 1 do
      local base, expire_at = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
      at = at + 2
      local key = KEYS[wk + j]
      local new = nil
      if not recompute then
        -- the scores stay as they are: only the metadata of the entries there are
        new = redis.call('ZSCORE', key, player)
      elseif combine == 2 then
        for k = N - n + j, N - 1 + j do
          local s = parts[k]
          if s and (new == nil or s < new) then new = s end
        end
      else
        local sum, latest = nil, 0
        for k = N - n + j, N - 1 + j do
          local s = parts[k]
          if s then
            local p_idx = math.floor(s / time_units)
            local t_idx = s - p_idx * time_units
            local points = max_points - p_idx
            if lower then points = min_points + p_idx end
            local unit = t_idx
            if tie == 1 then unit = time_units - 1 - t_idx elseif tie == 2 then unit = 0 end
            sum = (sum or 0) + points
            if unit > latest then latest = unit end
          end
        end
        if sum then
          local w_idx = w_max - sum
          if lower then w_idx = sum - w_min end
          local units = latest - base
          if units < 0 then units = 0 elseif units > w_units - 1 then units = w_units - 1 end
          if tie == 1 then units = w_units - 1 - units elseif tie == 2 then units = 0 end
          new = w_idx * w_units + units
        end
      end
      if recompute then
        local cur = redis.call('ZSCORE', key, player)
        if new == nil then
          if cur then
            redis.call('ZREM', key, player)
            record(key, player)
            drop_meta(key, player)
            entry_moved(key, player, cur, nil)
            mirror(key, player)
          end
        elseif not cur or tonumber(cur) ~= new then
          redis.call('ZADD', key, new, player)
          record(key, player)
          redis.call('PEXPIREAT', key, expire_at)
          hist_ensure(key, w_hist, expire_at)
          entry_moved(key, player, cur, new, expire_at)
          mirror(key, player)
        end
      end
      if new and md ~= '' then set_meta(key, player, md, expire_at) end
    end
  end
end

-- A board deletion marker of this partition (`key`: the generation's key, without period or window):
-- recorded, and once the markers of all `partitions` of the shard are, the generation's keys (every
-- period, window and metadata key) are deleted. Returns false (never a duplicate).
local function delete_board(key, partitions)
  local stem = string.sub(key, #board_prefix + 1)
  local member = stem .. '\n' .. partition
  if not redis.call('ZSCORE', deleted_key, member) then
    redis.call('ZADD', deleted_key, 0, member)
    record(deleted_key, member)
    any_deleted = true
  end
  if redis.call('ZLEXCOUNT', deleted_key, '[' .. stem .. '\n', '(' .. stem .. '\v') < partitions then return false end
  redis.call('UNLINK', key)
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', key .. '[@~!]*', 'COUNT', 1000)
    cursor = page[1]
    if #page[2] > 0 then redis.call('UNLINK', unpack(page[2])) end
  until cursor == '0'
  return false
end

-- An erasure's dedup part: the partition's remembered event ids of `player` ("<event id>\n<board
-- key>\n<player>": neither a player id nor a board key holds a newline) on the board whose key is
-- `key` (its generations, periods and windows included) or, `all`, on every board. O(the dedup set:
-- the partition's event ids of the last dedup window).
local function forget_event_ids(player, key, all)
  local suffix = '\n' .. player
  local gone = {}
  local total = redis.call('ZCARD', dedup_key)
  for start = 0, total - 1, 1000 do
    for _, m in ipairs(redis.call('ZRANGE', dedup_key, start, start + 999)) do
      if string.sub(m, -#suffix) == suffix then
        local board_key = string.match(string.sub(m, 1, #m - #suffix), '\n([^\n]*)$') or ''
        if all or board_key == key or string.sub(board_key, 1, #key + 1) == key .. '#' then gone[#gone + 1] = m end
      end
    end
  end
  for _, m in ipairs(gone) do
    redis.call('ZREM', dedup_key, m)
    record(dedup_key, m)
  end
end

-- Appends one board's positions before and after an event to its rank report (see the header).
local function report_change(report, key, before, ahead_before, after, ahead_after)
  local list = string.sub(board_prefix, 1, #board_prefix - #'board:') .. 'rank-change:' .. report
  redis.call('RPUSH', list, string.sub(key, #board_prefix + 1), before, ahead_before, after, ahead_after, card_seen(key))
  redis.call('PEXPIRE', list, 60000)
end

-- applies event i (its offset already accepted); returns whether it was a duplicate
local function apply_one(i, base)
  local key = KEYS[BOARDS + i]
  local player = ARGV[base + 1]
  local op = tonumber(ARGV[base + 2])
  if op == 0 then return false end
  if op == 7 then return delete_board(key, tonumber(ARGV[base + 3])) end
  if any_deleted and op ~= 6 then
    -- a record of a deleted generation written after this partition's deletion marker: ignored
    local stem = string.match(string.sub(key, #board_prefix + 1), '^[^#@~!]*#%d+')
    if stem and redis.call('ZSCORE', deleted_key, stem .. '\n' .. partition) then return false end
  end
  local report = ARGV[base + 16]
  if is_duplicate(ARGV[base + 9], key, player, tonumber(ARGV[base + 10])) then
    if report ~= '' then
      local now = redis.call('ZSCORE', key, player)
      local ahead = now and rank_seen(key, player, now) or -1
      report_change(report, key, now or '', ahead, now or '', ahead)
    end
    return true
  end
  local windows = tonumber(ARGV[base + 14])
  local md = ARGV[base + 15]
  local h = tonumber(ARGV[base + 17])
  if op == 5 then
    -- a board the player leaves
    local was = redis.call('ZSCORE', key, player)
    if redis.call('ZREM', key, player) == 1 then
      record(key, player)
      drop_meta(key, player)
      entry_moved(key, player, was, nil)
      mirror(key, player)
      if windows > 0 then refresh_windows(windows, player, tonumber(ARGV[base + 5]), tonumber(ARGV[base + 6]), tonumber(ARGV[base + 7]), ARGV[base + 11] == '1', true, '') end
    end
  elseif op == 6 then
    -- a tombstone: the board named (its key without a definition, then its generations and periods,
    -- "<key>#..."), or every board (value 1: the key is the boards' common prefix)
    local function erase_from(k)
      if redis.call('TYPE', k).ok ~= 'zset' then return end
      if string.sub(k, -4) == '!arr' or string.sub(k, -4) == '!dep' then
        return -- a move's companions: mirrored by the board key
      elseif string.sub(k, -#META) == META then
        drop_meta(string.sub(k, 1, -#META - 1), player)
      elseif string.sub(k, -#HIST) == HIST or string.sub(k, -#HBOUNDS) == HBOUNDS then
        return -- a histogram's companions: counted below, by the board key
      else
        local was = redis.call('ZSCORE', k, player)
        if was and redis.call('ZREM', k, player) == 1 then
          record(k, player)
          entry_moved(k, player, was, nil)
          mirror(k, player)
        end
      end
    end
    local pattern = key .. '#*'
    if tonumber(ARGV[base + 3]) == 1 then
      pattern = key .. '*'
    else
      erase_from(key)
      erase_from(key .. META)
    end
    local cursor = '0'
    repeat
      local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
      cursor = page[1]
      for _, k in ipairs(page[2]) do erase_from(k) end
    until cursor == '0'
    forget_event_ids(player, key, tonumber(ARGV[base + 3]) == 1)
  else
    local value = tonumber(ARGV[base + 3])
    local time_idx = tonumber(ARGV[base + 4])
    local max_points = tonumber(ARGV[base + 5])
    local min_points = tonumber(ARGV[base + 6])
    local time_units = tonumber(ARGV[base + 7])
    local ttl = tonumber(ARGV[base + 8])
    local lower = ARGV[base + 11] == '1'

    local current = redis.call('ZSCORE', key, player)
    local ahead_before = -1
    if report ~= '' and current then ahead_before = rank_seen(key, player, current) end
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

    local expire_at = tonumber(ARGV[base + 12])
    if points ~= old_points then
      local points_idx = max_points - points
      if lower then points_idx = points - min_points end
      local new_key = points_idx * time_units + time_idx
      redis.call('ZADD', key, new_key, player)
      record(key, player)
      hist_ensure(key, h, tonumber(ARGV[base + 12]))
      entry_moved(key, player, current, new_key, tonumber(ARGV[base + 12]))
      if ttl > 0 and redis.call('TTL', key) == -1 then
        redis.call('EXPIRE', key, ttl)
      end
      if expire_at > 0 then
        -- a replay past the period's retention deletes the key here, as the clock would have
        redis.call('PEXPIREAT', key, expire_at)
      end
      mirror(key, player)
    end
    if md ~= '' then set_meta(key, player, md, expire_at) end
    if report ~= '' then
      local now = redis.call('ZSCORE', key, player)
      report_change(report, key, current or '', ahead_before, now or '', now and rank_seen(key, player, now) or -1)
    end
    if windows > 0 and (points ~= old_points or md ~= '') then
      refresh_windows(windows, player, max_points, min_points, time_units, lower, points ~= old_points, md)
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
