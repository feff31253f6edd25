--[[
  Retention (BoardRules.keep_top, expire_inactive_ms; the rules: model/src/retention.ts): trims and
  expiries, records of the score log written by a router's retainer to every partition, applied in
  log order with the players' scores, so a rebuild ends the same whatever order the shard applies
  its partitions in.

  Floors. "<period key>!floor" (a sorted set, score 0) holds one member
  "<partition>\n<sort key>\n<player>" per partition that applied a trim: the last entry kept. An
  entry (k, id) is below a floor (fk, fid) when k > fk, or k = fk and id > fid by bytes (Redis's
  order of equal scores: sorted-sets.lua's bytes_less, not Lua's locale-bound `<`).
  A partition's floor only rises: a trim whose floor is below the one held keeps the one held.

  TRIM (key: the period's key, value: the log's partitions, limit: the floor's sort key, floor:
  its player, expire_at: the period key's expiry). The record of partition p sets p's floor and
  removes, from the key and its hidden companion, the entries below it of the players whose slot is
  p (apply-removals.lua's slot_of), with their metadata and last event times. Cost: one pass over
  the entries at or past the floor's sort key per record, O(tail x partitions of the shard).

  A write of a trimmed board (retain bit 1) whose entry ends below its partition's floor is not
  kept: its entry goes in the same call (one ZRANGEBYLEX per write).

  Last event times. On a board with expire_inactive_ms (retain bit 2) "<period key>!seen" (member:
  player, score: Unix ms) holds each player's latest event time (the write's timestamp_ms, the
  greatest seen: ZADD GT), with the key's expiry. EXPIRE (key, value, limit: the cut-off, Unix ms):
  the record of partition p removes the players of slot p whose time is before the cut-off, as a
  trim removes an entry. Cost: O(log n + the inactive players of the shard) per record. A later
  write brings a player back, with that write's time.

  A trim or an expiry of a deleted generation or a closed period changes nothing (its standings
  are final). The record of partition 0 adds the action's audit line (apply-moderation.lua).

  Input:  PARTITION (apply-input.lua); TRIM and EXPIRE events: key, value, limit, floor, expire_at,
          audit; score events: key, player, retain (bit 1: keep_top, bit 2: expire_inactive_ms),
          at (the event's time, Unix ms), expire_at
  Output: trim(ev), expire_inactive(ev), retain_after(ev)
]]

-- whether entry (k, id) is below the floor (fk, fid): it goes
local function below(k, id, fk, fid)
  if k ~= fk then return k > fk end
  return bytes_less(fid, id) -- sorted-sets.lua: by bytes
end

-- this partition's floor of `key`: its sort key, its player and the member holding it; nil when none
local function floor_of(key)
  local m = redis.call('ZRANGEBYLEX', key .. FLOOR, '[' .. PARTITION .. '\n', '(' .. PARTITION .. '\v')[1]
  if not m then return nil end
  local k, id = string.match(m, '^[^\n]*\n([^\n]*)\n(.*)$')
  return tonumber(k), id, m
end

-- removes the player's entry of `key` (visible or hidden), its metadata and its last event time
local function drop_entry(key, player)
  erase_from(key, player)
  erase_from(key .. META, player)
  erase_from(key .. HID, player)
  erase_from(key .. SEEN, player)
end

-- the members of sorted set `key` at sort key >= `from` whose slot is this partition, with their keys
local function tail_here(key, from, slots)
  local out, mine = {}, tonumber(PARTITION)
  local off = 0
  while true do
    local page = redis.call('ZRANGE', key, int_arg(from), '+inf', 'BYSCORE', 'LIMIT', off, 1000, 'WITHSCORES')
    if #page == 0 then break end
    for i = 1, #page, 2 do
      if slot_of(page[i], slots) == mine then
        out[#out + 1] = page[i]
        out[#out + 1] = tonumber(page[i + 1])
      end
    end
    off = off + #page / 2
  end
  return out
end

-- a trim or an expiry that changes nothing: a deleted generation, or a closed period
local function frozen(key)
  return in_deleted_generation(key) or in_closed_period(key)
end

local function trim(ev)
  local key, fk, fid = ev.key, ev.limit, ev.floor
  if not frozen(key) then
    local held_k, held_id, held = floor_of(key)
    if held and not below(held_k, held_id, fk, fid) then
      fk, fid = held_k, held_id -- the floor held is at or above this one: it stays
    else
      if held then
        zrem(key .. FLOOR, held)
        record(key .. FLOOR, held)
      end
      local m = PARTITION .. '\n' .. int_arg(fk) .. '\n' .. fid
      redis.call('ZADD', key .. FLOOR, 0, m)
      record(key .. FLOOR, m)
      if ev.expire_at > 0 then expire(key .. FLOOR, ev.expire_at) end
    end
    for _, k in ipairs({ key, key .. HID }) do
      local tail = tail_here(k, fk, ev.value)
      for i = 1, #tail, 2 do
        if below(tail[i + 1], tail[i], fk, fid) then drop_entry(key, tail[i]) end
      end
    end
  end
  if PARTITION == '0' then audit(ev) end -- one line for the whole trim
end

local function expire_inactive(ev)
  local key = ev.key
  if not frozen(key) then
    local mine = tonumber(PARTITION)
    local gone = {}
    local off = 0
    while true do
      local page = redis.call('ZRANGE', key .. SEEN, '-inf', '(' .. int_arg(ev.limit), 'BYSCORE', 'LIMIT', off, 1000)
      if #page == 0 then break end
      for _, p in ipairs(page) do
        if slot_of(p, ev.value) == mine then gone[#gone + 1] = p end
      end
      off = off + #page
    end
    for _, p in ipairs(gone) do drop_entry(key, p) end
  end
  if PARTITION == '0' then audit(ev) end -- one line for the whole expiry
end

-- after a score event of a board with retention: an entry below its partition's floor goes; the
-- player's latest event time is kept while it has an entry
local function retain_after(ev)
  local key, player = ev.key, ev.player
  local s = redis.call('ZSCORE', key, player) or redis.call('ZSCORE', key .. HID, player)
  if s and ev.retain % 2 == 1 then
    local fk, fid = floor_of(key)
    if fk and below(tonumber(s), player, fk, fid) then
      drop_entry(key, player)
      s = false
    end
  end
  if ev.retain >= 2 then
    if s then
      redis.call('ZADD', key .. SEEN, 'GT', int_arg(ev.at), player)
      record(key .. SEEN, player)
      if ev.expire_at > 0 then expire(key .. SEEN, ev.expire_at) end
    else
      erase_from(key .. SEEN, player)
    end
  end
end
