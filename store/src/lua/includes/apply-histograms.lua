--[[
  Histograms (BoardRules.histogram_bounds): a board key with a histogram has two companions:
  "<key>!hbounds", bucket i -> the first sort key of bucket i (written once, from the event's
  bounds, when the key gets its first entry), and "<key>!hist", bucket i -> its entries. Every
  entry added, moved or removed moves one count: its bucket is the hbounds member with the
  greatest score <= its key (ZRANGE ... BYSCORE REV LIMIT 0 1), so an erasure, which does not
  know the board's rules, keeps the counts right too. They expire with their key.

  Input:  HISTOGRAMS (apply-input.lua: the call's bound lists, each n sort keys ascending)
  Output: HIST, HBOUNDS (the companions' suffixes), hist_ensure(key, h, expire_at),
          hist_move(key, old, new, expire_at), forget_bounds()

  Each key's bounds are read once per call (one ZRANGE ... WITHSCORES) and an entry's bucket is
  found by a binary search over them in Lua, instead of a ZRANGE per entry moved.
]]
local HIST, HBOUNDS = '!hist', '!hbounds'

-- per board key, read once per call: false (no histogram), or its buckets' names and first sort
-- keys in the order of ZRANGE (by first key, then by name)
local bounds_read = {}

local function bounds_of(key)
  local b = bounds_read[key]
  if b ~= nil then return b end
  local raw = redis.call('ZRANGE', key .. HBOUNDS, 0, -1, 'WITHSCORES')
  b = false
  if #raw > 0 then
    b = { names = {}, firsts = {} }
    for i = 1, #raw, 2 do
      b.names[#b.names + 1] = raw[i]
      b.firsts[#b.firsts + 1] = tonumber(raw[i + 1])
    end
  end
  bounds_read[key] = b
  return b
end

-- the bucket of sort key `k`: the last bound whose first key is <= k (ZRANGE ... BYSCORE REV
-- LIMIT 0 1); nil when below every bound
local function bucket_of(b, k)
  local lo, hi = 0, #b.firsts
  -- invariant: bounds 1..lo start at or below k; bounds hi+1.. start above it
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if b.firsts[mid] <= k then lo = mid else hi = mid - 1 end
  end
  return b.names[lo]
end

-- gives `key` the bucket bounds HISTOGRAMS[h] unless it has them (h = 0: no histogram)
local function hist_ensure(key, h, expire_at)
  if h == 0 or bounds_of(key) then return end
  local bounds = key .. HBOUNDS
  for i, first in ipairs(HISTOGRAMS[h]) do
    redis.call('ZADD', bounds, first, tostring(i - 1))
    record(bounds, tostring(i - 1))
  end
  if expire_at > 0 then
    expire(bounds, expire_at)
    expire(key .. HIST, expire_at)
  end
  bounds_read[key] = nil -- read back at the next use (an expiry in the past deleted them)
end

-- moves one entry of `key` from sort key `old` to `new` (either nil/false: added, removed) in its histogram
local function hist_move(key, old, new, expire_at)
  local b = bounds_of(key)
  if not b then return end
  local hist = key .. HIST
  local from = old and bucket_of(b, tonumber(old))
  local to = new and bucket_of(b, tonumber(new))
  if from == to then return end
  if from then
    if tonumber(redis.call('ZINCRBY', hist, -1, from)) <= 0 then zrem(hist, from) end
    record(hist, from)
  end
  if to then
    redis.call('ZINCRBY', hist, 1, to)
    record(hist, to)
    if expire_at and expire_at > 0 then expire(hist, expire_at) end
  end
end

-- forgets the bounds read (after UNLINKs)
local function forget_bounds()
  bounds_read = {}
end
