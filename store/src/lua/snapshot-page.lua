--[[
  One page of a sorted set for a snapshot (writer/snapshot.ts): the `count` members that follow
  the position (score, member) in the set's order (score, then member bytes), as the set is now.

  Paging by position rather than by index is what keeps the pages right while records are
  applied: a member that does not change between two pages keeps its position, so no page skips
  it and no two pages both hold it, however others move around it. Members that do change are in
  the snapshot's journal and are re-read at its end.

  The position need not be a member any more (it may have moved): the first member after it is
  found by counting the members with a lower score, then a binary search among those with the
  same score by their bytes. Member bytes are compared here byte by byte, as Redis orders them
  (memcmp), never with Lua's `<` (which follows the server's collation locale).
  Cost: O(log n) for the position (O(log n × log k) with k members of equal score) plus the page.

  Input:
    KEYS[1]  the sorted set
    ARGV[1]  the score of the position as Redis printed it, or '' to start at the first member
    ARGV[2]  the member of the position
    ARGV[3]  count

  Output: { member1, score1, member2, score2, ... }  (fewer than count pairs: the set's end)
]]
local key = KEYS[1]
local count = tonumber(ARGV[3])
local start = 0

-- true when a sorts after b, comparing bytes as unsigned (memcmp), then length
local function sorts_after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end

if ARGV[1] ~= '' then
  local score, member = ARGV[1], ARGV[2]
  local lo = redis.call('ZCOUNT', key, '-inf', '(' .. score)
  local hi = lo + redis.call('ZCOUNT', key, score, score)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local at = redis.call('ZRANGE', key, mid, mid)[1]
    if sorts_after(at, member) then hi = mid else lo = mid + 1 end
  end
  start = lo
end
return redis.call('ZRANGE', key, start, start + count - 1, 'WITHSCORES')
