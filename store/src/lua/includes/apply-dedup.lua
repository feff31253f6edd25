--[[
  Event ids: a game server that retries sends the same event_id again. An event whose (event id,
  board, player) was already applied within the dedup window is skipped (counted as a duplicate)
  but advances the offset. The window is measured in ingest time carried by the records
  themselves, never the wall clock, so a replay of the log makes exactly the same decisions.
  Remembered ids live in a sorted set per partition (member "<event id>\n<board key>\n<player>",
  score = ingest time), trimmed to the window after every call.

  Input:  DEDUP_KEY, DEDUP_WINDOW_MS (apply-input.lua: 0 = no deduplication)
  Output: is_duplicate(ev), remember(ev), forget_old()
]]
local newest_ingest = nil

-- true when (event id, board, player) was applied at an ingest time within the window
local function is_duplicate(ev)
  if DEDUP_WINDOW_MS <= 0 or ev.event_id == '' then return false end
  local seen = redis.call('ZSCORE', DEDUP_KEY, ev.event_id .. '\n' .. ev.key .. '\n' .. ev.player)
  return seen ~= false and seen ~= nil and tonumber(seen) >= ev.ingested_ms - DEDUP_WINDOW_MS
end

-- remembers an applied event's id
local function remember(ev)
  if DEDUP_WINDOW_MS <= 0 or ev.event_id == '' then return end
  local member = ev.event_id .. '\n' .. ev.key .. '\n' .. ev.player
  redis.call('ZADD', DEDUP_KEY, ev.ingested_ms, member)
  record(DEDUP_KEY, member)
  if newest_ingest == nil or ev.ingested_ms > newest_ingest then newest_ingest = ev.ingested_ms end
end

-- drops the ids older than the window before the newest one remembered in this call
local function forget_old()
  if newest_ingest == nil then return end
  local below = '(' .. string.format('%d', newest_ingest - DEDUP_WINDOW_MS)
  if journal_on then
    for _, gone in ipairs(redis.call('ZRANGEBYSCORE', DEDUP_KEY, '-inf', below)) do record(DEDUP_KEY, gone) end
  end
  redis.call('ZREMRANGEBYSCORE', DEDUP_KEY, '-inf', below)
end
