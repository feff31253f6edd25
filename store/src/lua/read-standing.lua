--[[
  A player's standing on the shard that owns it, all read at one instant (one script):
  its sort key, how many members of this shard rank ahead of it, the board's size on this
  shard, and the `radius` entries on each side of it.

  Members are ordered in Redis by (score ascending, member bytes ascending), which is
  exactly the board's order (see common/src/score-encoding.ts), so the members ranked
  strictly ahead of a member are its ZRANK: the player is never counted against itself.
  Because the key, the count and the window come from the same instant, the window
  holds the player exactly once, at the key returned, and every neighbour as it stood
  at that instant. The router asks the other shards (read-window.lua) only at this key.

  Input:
    KEYS[1]  board key
    KEYS[2]  heartbeat key
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  player id
    ARGV[3]  radius r >= 0: also return the entries at shard ranks [ahead - r, ahead + r]
  Output:
    { status, key, ahead, card, metadata, start, meta, member1, key1, [metadata1], ... }
      key    the player's sort key; false (nil) when the player has no entry on this
             board, and then nothing follows
      ahead  members of this shard ranked strictly ahead of the player (its ZRANK)
      card   members of the board on this shard
      metadata  the player's metadata ('' when none)
      start  the 0-based shard rank of member1; entries follow in rank order, the
             player itself at shard rank `ahead` (none when r = 0)
      meta   1 when the entries carry metadata (member, key, metadata each), else 0
  Cost: O(log n + r).
]]
local status, age, bound = check_shard(KEYS[2], ARGV[1])
if status ~= READ_OK then return { status, age, bound } end
return read_standing(KEYS[1], ARGV[2], tonumber(ARGV[3]))
