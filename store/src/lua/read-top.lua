--[[
  The first `count` entries of a board on this shard, best first, and the board's size
  on this shard, read at one instant (one script): the router merges shards read at
  their own instants (see router/src/top-merge.ts).

  Input:
    KEYS[1]  board key
    KEYS[2]  heartbeat key
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  count (>= 1)
  Output:
    { status, card, meta, member1, key1, [metadata1], member2, ... }   status: see read-header.lua
      meta   1 when the board keeps metadata (each entry is then member, key, metadata), else 0
  Cost: O(log n + count), and O(count log n) more on a board that keeps metadata.
]]
local status, age, bound = check_shard(KEYS[2], ARGV[1])
if status ~= READ_OK then return { status, age, bound } end
return read_top(KEYS[1], tonumber(ARGV[2]))
