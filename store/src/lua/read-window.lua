--[[
  Where a position (key, player) falls on this shard, and the entries next to it.

  "ahead" counts the members that rank strictly ahead of the position in the board's
  order (sort key ascending, then member bytes ascending). Members with a smaller key
  come from ZCOUNT; members with exactly the same key are ordered by member, so the
  count among them comes from a binary search by rank in [lo, hi): O(log n) per probe,
  log2(hi - lo) probes, and hi - lo is 0 or 1 unless players tie within one time unit.
  The position need not be a member of this shard: that is how the router sums the
  shards' counts into a global rank. The router asks it only of the shards that do not
  own the position's player, at the key the owner returned (read-standing.lua), so no
  shard counts the asked player against a position of its own; a member exactly at the
  position is not counted either (not strictly ahead). The count, the size and the
  window are read at one instant (one script); the router's answer is exact against
  each shard's board as it was when that shard was read (see router/src/queries.ts).

  Input:
    KEYS[1]  board key
    KEYS[2]  heartbeat key
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  sort key of the position
    ARGV[3]  player id of the position
    ARGV[4]  radius r >= 0: also return the entries at ranks [ahead - r, ahead + r]
  Output:
    { status, ahead, card, start, meta, member1, key1, [metadata1], ... }
    start = the 0-based shard rank of member1 (entries follow in rank order)
    meta  = 1 when the board keeps metadata (each entry is then member, key, metadata), else 0
  Cost: O(log n * (1 + log2(ties))) + O(r).
]]
local status, age, bound = check_shard(KEYS[2], ARGV[1])
if status ~= READ_OK then return { status, age, bound } end
return read_window(KEYS[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
