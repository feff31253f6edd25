--[[
  Records per player (AdminService.ExportPlayerData): every record of the score log keyed by a
  player that this call takes (its first part; a duplicate by event id is a record too) adds one
  to the player's count in "<prefix>count:records" (a hash: field the player, value the count;
  snapshots keep it, writer/snapshot.ts, and a rebuild counts again from the log). Records the
  shard could not use (OP_NONE) and wipes name no player. One HINCRBY per record: a hash, not a
  sorted set, because nothing reads the counts in order, and a sorted set of counts (most players
  tied on a few values) moved each player past its ties on every record, the costliest command of
  a plain record (store/bench/zset-floor.ts: 15.9 µs against 3.3 for HINCRBY at 1M players).
  Nor players sharing fields: buckets of 8 or 32 players a field (a linear hash of strings
  "\n<player>\t<count>") took 28 or 23 bytes a player where a field each takes 71 in a load
  through the log, but each record then read and rewrote its bucket's string in Lua, and Redis's
  CPU per record of a 1M-player load went from 12–13.5 to 22–23.5 µs: the field per player stays.

  Input:  KEY_PREFIX (apply-input.lua); an event's player
  Output: count_record(ev)
]]
local RECORDS_KEY = KEY_PREFIX .. 'count:records'

local function count_record(ev)
  if ev.player == '' then return end
  redis.call('HINCRBY', RECORDS_KEY, ev.player, 1)
  record(RECORDS_KEY, ev.player)
end
