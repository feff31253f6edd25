--[[
  Records per player (AdminService.ExportPlayerData): every record of the score log keyed by a
  player that this call takes (its first part; a duplicate by event id is a record too) adds one
  to the player's count in "<prefix>count:records:<partition>:<bucket>" (a hash: field the player,
  value the count; the bucket comes with the event, a hash of the player: model/src/
  record-counts.ts; snapshots keep the hashes, writer/snapshot.ts, and a rebuild counts again from
  the log). The partition is the record's: a player's own records are in its slot's, where the
  export looks; a record keyed by something else (a team, a tournament's board) that names a
  player is counted under its own partition, so everything here belongs to the partition that
  wrote it and moves with it (writer/slot-split.ts). Records the shard could not use (OP_NONE)
  and wipes name no player. One HINCRBY per record.

  The layout, by what it costs (store/bench/zset-floor.ts at 1M and 3.3M players, Redis CPU per
  HINCRBY and bytes per player): one hash of every player, 1.8–2.5 µs and 64–66 bytes (a dict
  entry, field and value each an allocation); hashes of about 64 players, each one listpack,
  3.2–3.7 µs and 13.5 bytes; of about 16, 2.8–3.2 µs and 16.5–18.5 bytes. Through the log, 5M
  players on 3 shards: 134 bytes of Redis per player in all against 179 with one hash per shard,
  19.1 µs of Redis per record against 17.0 (docs/performance.md, the counts of records). A sorted
  set of counts (most players tied on a few values) moved each player past its ties on every
  record: 9–15 µs. Players sharing string fields ("\n<player>\t<count>" read and rewritten in
  Lua) took 23–28 bytes but doubled Redis's CPU per record of a load.

  Input:  KEY_PREFIX, PARTITION (apply-input.lua); an event's player and bucket
  Output: count_record(ev)
]]
-- "<prefix>count:records:<partition>:", built once per partition
local records_partition, records_prefix = nil, nil

local function count_record(ev)
  if ev.player == '' then return end
  if records_partition ~= PARTITION then
    records_partition = PARTITION
    records_prefix = KEY_PREFIX .. 'count:records:' .. PARTITION .. ':'
  end
  local key = records_prefix .. ev.bucket
  redis.call('HINCRBY', key, ev.player, 1)
  record(key, ev.player)
end
