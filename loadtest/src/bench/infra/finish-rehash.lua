--[[
  Drives the incremental rehash of a sorted set's hash table forward.

  A sorted set keeps its members in a skiplist and a hash table. When the table
  fills, Redis allocates one twice the size and moves the buckets over
  incrementally: one step per lookup or write on that set (zsets are not part of
  Redis's active rehashing, which covers only the keyspace). Until the last bucket
  moved, both tables are allocated. Each lookup here makes one step, which moves
  at least one bucket index forward, so as many lookups as the old table has
  buckets (never more than the set's members) finish any rehash in progress.

  Input:
    KEYS[1]  the sorted set
    ARGV[1]  how many lookups (ZSCORE of a member that need not exist)
  Output:
    the number of lookups made
]]
local n = tonumber(ARGV[1])
for _ = 1, n do
  redis.call('ZSCORE', KEYS[1], '')
end
return n
