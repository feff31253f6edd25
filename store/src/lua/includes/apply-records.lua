--[[
  Records per player (AdminService.ExportPlayerData): every record of the score log keyed by a
  player that this call takes (its first part; a duplicate by event id is a record too) adds one
  to the player's count in "<prefix>board:~records" (a sorted set: member the player, score the
  count; under board: so snapshots keep it, and a rebuild counts again from the log). Records the
  shard could not use (OP_NONE) and wipes name no player. One ZINCRBY per record.

  Input:  BOARD_PREFIX (apply-input.lua); an event's player
  Output: count_record(ev)
]]
local RECORDS_KEY = BOARD_PREFIX .. '~records'

local function count_record(ev)
  if ev.player == '' then return end
  redis.call('ZINCRBY', RECORDS_KEY, 1, ev.player)
  record(RECORDS_KEY, ev.player)
end
