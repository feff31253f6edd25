--[[
  Rank reports (SubmitScoresRequest.report_ranks): an event with a report id appends to the list
  "<prefix>rank-change:<id>" (kept 60 s; not the log's state: no snapshot holds it) its board's
  stored name, the player's key before ('' if none) and the members ahead of it then, its key
  after and the members ahead of it, and the board's size on this shard: 6 strings per board,
  read in this same script around the event's own change. A duplicate reports no change.

  Input:  KEY_PREFIX, BOARD_PREFIX (apply-input.lua), rank_seen, card_seen (apply-moves.lua)
  Output: position_of(key, player) -> key ('' when none), ahead (-1 when none);
          report_change(report, key, before, ahead_before, after, ahead_after)
]]
local REPORT_KEPT_MS = 60000

local function position_of(key, player)
  local now = redis.call('ZSCORE', key, player)
  if not now then return '', -1 end
  return now, rank_seen(key, player, now)
end

local function report_change(report, key, before, ahead_before, after, ahead_after)
  local list = KEY_PREFIX .. 'rank-change:' .. report
  redis.call('RPUSH', list, string.sub(key, #BOARD_PREFIX + 1), before, ahead_before, after, ahead_after, card_seen(key))
  redis.call('PEXPIRE', list, REPORT_KEPT_MS)
end
