--[[
  Applies batches of score events from one or more partitions of the score log, exactly once
  (several partitions in one call: their batches are small when the log is quiet, and a call's
  own cost, about 80 µs of Redis whatever it holds, would be paid per partition). Assembled
  by store/src/scripts.ts: the generated constants (OP_*, APPLY_*, COMBINE_*, TIE_*: store/src/
  script-codes.ts), includes/sorted-sets.lua, includes/scores.lua, then the includes/apply-*.lua
  of each feature (each says what it does, what it takes and what it gives), then this file.

  Each partition's last applied offset lives in the same Redis as the boards and is moved in the
  same atomic script call as the effects, so a batch delivered twice (a shard node restarted
  between applying and committing to Kafka, a rebalance, a replay) changes nothing the second
  time: events at or below the stored offset are skipped. Events must come in offset order, and
  the first new one must be exactly the stored offset + 1: anything else is a GAP, reported
  without applying it (or the rest of that partition's events; the other partitions of the call
  are applied), and the caller rewinds the consumer to the stored offset + 1. So a Redis
  that lost data (or a fresh one) is refilled from the log instead of silently missing records.
  Records the shard node could not use (undecodable or invalid) come as OP_NONE: they only
  advance the offset. A record that touches several boards (ScoreUpdate.also_boards,
  leave_board) comes as several events with its offset, the later ones marked `part`: they are
  applied right after the first, in this same call, or (the record already applied) not at all,
  so its boards change together. Counts (applied, duplicates) are of records.

  Built from: nothing is applied unless the shard's built-from key equals the writer's
  (store/src/identity.ts: the topic id, slots and board specs the data was made with). An empty
  Redis (no offsets at all: new, or lost its data) takes the writer's value.

  Input:
    KEYS[1]        the offsets hash (partition -> last applied offset)
    KEYS[2]        the first partition's dedup sorted set (apply-dedup.lua)
    KEYS[3]        the built-from key
    KEYS[4]        the snapshot flag, KEYS[5] the snapshot journal (apply-journal.lua)
    KEYS[6]        the deleted generations and closed periods (apply-deletion.lua)
    KEYS[7]        the change stream, KEYS[8] the change flag (apply-changes.lua)
    KEYS[9]        the move, "<prefix>move" (apply-moves.lua)
    KEYS[10..]     the board keys of the events (a deletion marker's: "<prefix>board:<board>#<generation>")
                   and the period and window keys of their windows (apply-windows.lua), and the dedup
                   sets of the partitions after the first, each once, in the order of first use;
                   events and partitions name theirs by index
    ARGV[1]        the partitions: a MessagePack array of maps { partition, dedup (the KEYS index of
                   its dedup set), events (how many of the events below are its, in order) }, each
                   partition once
    ARGV[2]        dedup window in ms (0 = no deduplication)
    ARGV[3]        the writer's built-from value
    ARGV[4]        what the call's events share: a MessagePack map of hist (lists of sort keys,
                   ascending: histogram bounds), enc (encodings { max_points, min_points,
                   time_units, lower }) and windows (what apply-windows.lua takes), each distinct
                   one once
    ARGV[4 + i]    event i: a MessagePack map (store/src/writer/pack-event.ts; a field at its
                   default, false, 0 or '', left out: apply-input.lua) of offset, part
                   (a further board of the previous event's record, same offset), player, bucket (of the
                   player's count of records: apply-records.lua), op
                   (OP_*), key (the KEYS index of its board key; OP_CLOSE_PERIOD: the period's), value (OP_DELETE_BOARD: the shard's partitions; OP_ERASE: 1 for every
                   board; OP_HIDE, OP_UNHIDE: 1 for every board; OP_WIPE, OP_HIDE_ABOVE, OP_TRIM, OP_EXPIRE: the log's partitions), time_idx, enc (an index into ARGV[4]'s enc), ttl (s),
                   event_id, ingested_ms, expire_at (Unix ms, 0 never), metadata ('' keeps the
                   entry's), report ('' or a rank report id), hist (0, or an index into ARGV[4]'s hist),
                   windows (0, or an index into ARGV[4]'s windows), audit ('' or a moderation
                   action's audit line: apply-moderation.lua), limit (OP_HIDE_ABOVE: apply-removals.lua;
                   OP_JOIN: the tournament's end), tour (false, or a tournament write's { join, max }:
                   apply-tournaments.lua; OP_JOIN's value: max_size),
                   floor (OP_TRIM: the floor's player), retain and at (a score event of a board with
                   retention: apply-retention.lua); limit of OP_TRIM: the floor's sort key, of OP_EXPIRE:
                   the cut-off

  Output: per partition, in the order of ARGV[1]:
    { { status, applied, skipped, lastOffset, duplicates, builtFrom }, ... }   lastOffset = the stored offset after the call
    status  APPLY_OK
            APPLY_GAP    an event's offset was beyond lastOffset + 1; it and the rest of the partition's
                         were not applied
            APPLY_DRIFT  the shard was built from something else (builtFrom: what); nothing applied, of
                         any partition
            APPLY_WRONG_TYPE  a board key holds something else than a sorted set (builtFrom: the key);
                         nothing applied, of any partition. Checked before any write: a Lua error midway would keep the
                         writes before it (Redis does not roll a script back) without moving the
                         offset, and a retry would apply them twice.
]]

-- the keys to type-check: every declared key, and the companions any event may write
local function wrong_type()
  local with_meta, with_hist, with_cols = false, false, false
  for _, ev in ipairs(EVENTS) do
    if ev.metadata ~= '' then with_meta = true end
    if ev.hist ~= 0 then with_hist = true end
    if ev.cols ~= '' then with_cols = true end
  end
  for i = FIRST_BOARD_KEY, #KEYS do
    local names = { KEYS[i] }
    if with_meta then names[#names + 1] = KEYS[i] .. META end
    if with_cols then names[#names + 1] = KEYS[i] .. COLS.suffix end
    if with_hist then
      names[#names + 1] = KEYS[i] .. HIST
      names[#names + 1] = KEYS[i] .. HBOUNDS
    end
    for _, k in ipairs(names) do
      local t = redis.call('TYPE', k).ok
      if t ~= 'zset' and t ~= 'none' then return k .. ' holds a ' .. t end
    end
  end
  return false
end

-- applies one event (its offset already accepted); returns whether it was a duplicate
local function apply_one(ev)
  local op = ev.op -- asked up to 20 times below: one table look-up
  if op == OP_NONE then return false end
  if op == OP_DELETE_BOARD then
    delete_board(ev)
    return false
  end
  if op == OP_CLOSE_PERIOD then
    close_period(ev)
    return false
  end
  if op == OP_HIDE then
    hide(ev)
    return false
  end
  if op == OP_UNHIDE then
    unhide(ev)
    return false
  end
  if op == OP_DELETE_ENTRY then
    delete_entry(ev)
    return false
  end
  if op == OP_WIPE then
    wipe(ev)
    return false
  end
  if op == OP_HIDE_ABOVE then
    hide_above(ev)
    return false
  end
  if op == OP_TEAM_MEMBER or op == OP_CONTRIBUTION then
    if in_deleted_generation(ev.key) then return false end
    if op == OP_TEAM_MEMBER then team_member(ev) else team_contribution(ev) end
    return false
  end
  if op == OP_PLACE or op == OP_TIER or op == OP_SETTLED then
    if in_deleted_generation(ev.key) or in_closed_period(ev.key) then return false end
    if op == OP_PLACE then league_place(ev)
    elseif op == OP_TIER then league_tier(ev)
    else league_settled(ev) end
    return false
  end
  if (op == OP_JOIN or op == OP_MEMBER) and (in_deleted_generation(ev.key) or in_closed_period(ev.key)) then return false end
  if op == OP_JOIN then
    join_tournament(ev)
    return false
  end
  if op == OP_MEMBER then
    tournament_member(ev)
    return false
  end
  if op == OP_TRIM then
    trim(ev)
    return false
  end
  if op == OP_EXPIRE then
    expire_inactive(ev)
    return false
  end
  -- a record of a deleted generation written after this partition's deletion marker: ignored
  if op ~= OP_ERASE and in_deleted_generation(ev.key) then return false end
  -- a record of a closed period written after this partition's close marker: ignored (its standings are final)
  if op ~= OP_ERASE and in_closed_period(ev.key) then return false end
  if is_duplicate(ev) then
    if ev.tour then keep_outcome(ev, 'ok') end -- applied before, its attempt counted then
    if ev.report ~= '' then
      local now, ahead = position_of(ev.key, ev.player)
      report_change(ev.report, ev.key, now, ahead, now, ahead)
    end
    return true
  end
  if ev.tour and not tournament_gate(ev) then return false end -- refused: not remembered, decided again if retried
  if op == OP_REMOVE then with_hidden(ev, apply_remove)
  elseif op == OP_ERASE then erase(ev)
  else with_hidden(ev, apply_score) end
  if ev.retain > 0 then retain_after(ev) end
  remember(ev)
  return false
end

-- every partition's answer when nothing was applied
local function refused(status, what)
  local out = {}
  for i, group in ipairs(GROUPS) do
    out[i] = { status, 0, 0, redis.call('HGET', OFFSETS_KEY, string.format('%d', group.partition)) or '-1', 0, what }
  end
  return out
end

local bad = wrong_type()
if bad then return refused(APPLY_WRONG_TYPE, bad) end
local built = redis.call('GET', BUILT_FROM_KEY)
if built ~= BUILT_FROM then
  if built == false and redis.call('EXISTS', OFFSETS_KEY) == 0 then
    redis.call('SET', BUILT_FROM_KEY, BUILT_FROM)
  else
    return refused(APPLY_DRIFT, built or '')
  end
end

-- applies the group's events after its stored offset; its answer
local function apply_partition()
  local stored = redis.call('HGET', OFFSETS_KEY, PARTITION)
  local applied_upto = stored and tonumber(stored) or -1
  local status, applied, skipped, duplicates = APPLY_OK, 0, 0, 0
  local last = applied_upto
  -- whether the record of the last first part was taken in this call (its further parts follow it)
  local record_taken = false
  for _, ev in ipairs(GROUP_EVENTS) do
    local go = false
    if ev.part then
      -- a further board of the previous event's record: with it, or not at all
      go = record_taken and ev.offset == last
    elseif ev.offset <= last then
      skipped = skipped + 1
      record_taken = false
    elseif ev.offset ~= last + 1 then
      status = APPLY_GAP
      break
    else
      record_taken = true
      last = ev.offset
      go = true
      if ev.op ~= OP_NONE then applied = applied + 1 end
    end
    if go and not ev.part then count_record(ev) end
    if go and apply_one(ev) and not ev.part then
      applied = applied - 1
      duplicates = duplicates + 1
    end
  end
  forget_old()
  if last > applied_upto then redis.call('HSET', OFFSETS_KEY, PARTITION, string.format('%d', last)) end
  return { status, applied, skipped, string.format('%d', last), duplicates }
end

local out = {}
for i, group in ipairs(GROUPS) do
  enter_partition(group)
  mirror_partition()
  changes_partition()
  dedup_partition()
  out[i] = apply_partition()
end
hist_flush()
return out
