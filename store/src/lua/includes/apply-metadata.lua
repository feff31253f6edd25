--[[
  Metadata (ScoreUpdate.metadata): an event that carries it keeps it with the player's entry,
  whether or not the score changed, in the board key's companion "<key>!meta" (one member
  "<player>\n<metadata>" per player, score 0: sorted-sets.lua's meta_member) and in those of the
  windows' entries; an entry removed (a board left, a window emptied, an erasure) loses its
  metadata. Those keys are type-checked with the others when any event carries metadata
  (apply-events.lua); they expire with their board key. The change stream carries no metadata, but
  the first kept for a board appends a marker to it (key "<key>!meta", no sort keys), before the
  change of the entry it comes with: a rank index's copy, which holds sort keys only, then knows its
  board keeps some before it holds an entry that has some (router/src/rank-index).

  Input:  none (functions only; record from apply-journal.lua, expire and zrem from apply-expiry.lua,
          changes_on and changed from apply-changes.lua)
  Output: META (the companion's suffix), set_meta(key, player, md, expire_at), drop_meta(key, player)
]]
local META = '!meta'

-- keeps `md` with the player's entry of board `key` (expiring with it when expire_at > 0)
local function set_meta(key, player, md, expire_at)
  local meta_key = key .. META
  local old = meta_member(meta_key, player)
  local member = player .. '\n' .. md
  if old == member then return end
  if old then
    zrem(meta_key, old)
    record(meta_key, old)
  elseif changes_on and redis.call('EXISTS', meta_key) == 0 then
    changed(meta_key, player, nil, nil)
  end
  redis.call('ZADD', meta_key, 0, member)
  record(meta_key, member)
  if expire_at > 0 then expire(meta_key, expire_at) end
end

-- drops the player's metadata of board `key` (its entry left)
local function drop_meta(key, player)
  local meta_key = key .. META
  if redis.call('TYPE', meta_key).ok ~= 'zset' then return end
  local old = meta_member(meta_key, player)
  if old then
    zrem(meta_key, old)
    record(meta_key, old)
  end
end
