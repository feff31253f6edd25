--[[
  Changes: while the change flag exists (routers with watchers keep it alive: router/src/watch),
  every entry added, moved or removed appends to the change stream its board key (k), the player
  (p) and its sort keys before (o) and after (n), '' when absent, in the order they happen,
  trimmed to about CHANGES_KEPT entries. The stream is this shard's, as of what it applied: not
  the log's state (no snapshot holds it; a rebuild's swap leaves it behind, and routers then read
  again). A move's arrivals are left out (apply-moves.lua). The first metadata a board keeps appends
  a marker with key "<board key>!meta" and neither sort key (apply-metadata.lua).

  Input:  CHANGES_KEY, CHANGES_FLAG_KEY (apply-input.lua), MIRROR_INTO (apply-moves.lua)
  Output: changes_partition() (call on entering a partition, after mirror_partition()),
          entry_moved(key, player, old, new, expire_at): call after every entry added, moved or
          removed (old, new: sort keys, nil when absent): its histogram count moves, watchers hear of it
]]
local CHANGES_KEPT = 100000
local watched = redis.call('EXISTS', CHANGES_FLAG_KEY) == 1
local changes_on = false
-- whether the partition being applied appends its changes (not a move's arrivals)
local function changes_partition()
  changes_on = watched and MIRROR_INTO ~= '!arr'
end

local function changed(key, player, old, new)
  if not changes_on then return end
  local o = old and string.format('%.17g', tonumber(old)) or ''
  local n = new and string.format('%.17g', tonumber(new)) or ''
  redis.call('XADD', CHANGES_KEY, 'MAXLEN', '~', CHANGES_KEPT, '*', 'k', key, 'p', player, 'o', o, 'n', n)
end

local function entry_moved(key, player, old, new, expire_at)
  hist_move(key, old, new, expire_at)
  changed(key, player, old, new)
end
