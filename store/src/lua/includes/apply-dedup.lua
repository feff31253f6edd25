--[[
  Event ids: a game server that retries sends the same event_id again. An event whose (event id,
  board, player) was already applied within the dedup window is skipped (counted as a duplicate)
  but advances the offset. The window is measured in ingest time carried by the records
  themselves, never the wall clock, so a replay of the log makes exactly the same decisions.
  Remembered ids live in a sorted set per partition (member "<event id>\n<board key>\n<player>",
  score = ingest time), trimmed to the window after every call.

  Input:  DEDUP_KEY, GROUP_EVENTS, DEDUP_WINDOW_MS (apply-input.lua: 0 = no deduplication)
  Output: dedup_partition() (call on entering a partition), is_duplicate(ev), remember(ev),
          forget_old() (call on leaving it), flush_remembered(), read_ids_directly()

  Per partition of a call, not per event: the stored ids of all its events are read by one ZMSCORE,
  and the ids it remembers are written together when it ends (an id remembered earlier in the same
  call is found in the call's own table).
]]
local newest_ingest = nil
-- the ids remembered in this call: member -> ingest time, and the ZADD arguments, written by one
-- ZADD per 500 at the call's end (flush_remembered)
local pending, pending_args = {}, {}
-- member -> stored score (false: none) of every event id of the call, read by one ZMSCORE at the
-- first look-up; 'direct' after an erasure dropped ids (then one ZSCORE per look-up)
local stored_ids = nil

-- built once per event (read_ids, is_duplicate and remember each ask)
local function member_of(ev)
  local m = ev.id_member
  if not m then
    m = ev.event_id .. '\n' .. ev.key .. '\n' .. ev.player
    ev.id_member = m
  end
  return m
end

-- a partition's ids start unread, nothing remembered
local function dedup_partition()
  newest_ingest, pending, pending_args, stored_ids = nil, {}, {}, nil
end

local function read_ids()
  local members = {}
  for _, ev in ipairs(GROUP_EVENTS) do
    if ev.event_id ~= '' then members[#members + 1] = member_of(ev) end
  end
  stored_ids = {}
  for from = 1, #members, 1000 do
    local upto = math.min(from + 999, #members)
    local scores = redis.call('ZMSCORE', DEDUP_KEY, unpack(members, from, upto))
    for i = from, upto do stored_ids[members[i]] = scores[i - from + 1] end
  end
end

-- true when (event id, board, player) was applied at an ingest time within the window
local function is_duplicate(ev)
  if DEDUP_WINDOW_MS <= 0 or ev.event_id == '' then return false end
  local member = member_of(ev)
  local seen = pending[member]
  if seen == nil then
    if stored_ids == 'direct' then
      seen = redis.call('ZSCORE', DEDUP_KEY, member)
    else
      if stored_ids == nil then read_ids() end
      seen = stored_ids[member]
    end
  end
  return seen ~= false and seen ~= nil and tonumber(seen) >= ev.ingested_ms - DEDUP_WINDOW_MS
end

-- remembers an applied event's id
local function remember(ev)
  if DEDUP_WINDOW_MS <= 0 or ev.event_id == '' then return end
  local member = member_of(ev)
  pending[member] = ev.ingested_ms
  pending_args[#pending_args + 1] = int_arg(ev.ingested_ms)
  pending_args[#pending_args + 1] = member
  record(DEDUP_KEY, member)
  if newest_ingest == nil or ev.ingested_ms > newest_ingest then newest_ingest = ev.ingested_ms end
end

-- writes the ids remembered so far into the dedup set
local function flush_remembered()
  for from = 1, #pending_args, 1000 do
    redis.call('ZADD', DEDUP_KEY, unpack(pending_args, from, math.min(from + 999, #pending_args)))
  end
  pending, pending_args = {}, {}
end

-- after ids were dropped from the set: look each up there again
local function read_ids_directly()
  stored_ids = 'direct'
end

-- writes the remembered ids, then drops those older than the window before the newest one
-- remembered in this call
local function forget_old()
  flush_remembered()
  if newest_ingest == nil then return end
  local below = '(' .. string.format('%d', newest_ingest - DEDUP_WINDOW_MS)
  if journal_on then
    for _, gone in ipairs(redis.call('ZRANGEBYSCORE', DEDUP_KEY, '-inf', below)) do record(DEDUP_KEY, gone) end
  end
  redis.call('ZREMRANGEBYSCORE', DEDUP_KEY, '-inf', below)
end
