--[[
  Histograms (BoardRules.histogram_bounds): a board key with a histogram has two companions:
  "<key>!hbounds", bucket i -> the first sort key of bucket i (written once, from the event's
  bounds, when the key gets its first entry), and "<key>!hist", bucket i -> its entries. Every
  entry added, moved or removed moves one count: its bucket is the hbounds member with the
  greatest score <= its key (ZRANGE ... BYSCORE REV LIMIT 0 1), so an erasure, which does not
  know the board's rules, keeps the counts right too. They expire with their key.

  Input:  HISTOGRAMS (apply-input.lua: the call's bound lists, each n sort keys ascending)
  Output: HIST, HBOUNDS (the companions' suffixes), hist_ensure(key, h, expire_at),
          hist_move(key, old, new, expire_at), hist_flush(), forget_bounds()

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

-- The call's histogram counts, written at its end (hist_flush): per "<key>!hist" and bucket, the
-- net change `a` and a floor `b` (nil: none), so that the count becomes max(count + a, b), exactly
-- as the changes one by one would leave it (a count that falls to 0 or below is removed: a -1
-- makes it max(count - 1, 0), a +1 count + 1). Then a bucket left and entered by different
-- entries in one call costs one read or none, not two ZINCRBY; the journal records every count
-- written.
local hist_keys, hist_changes, hist_expire = {}, {}, {}

local function hist_change(hist, bucket, d)
  local per = hist_changes[hist]
  if not per then
    per = { order = {} }
    hist_changes[hist] = per
    hist_keys[#hist_keys + 1] = hist
  end
  local c = per[bucket]
  if not c then
    c = { a = 0, b = nil }
    per[bucket] = c
    per.order[#per.order + 1] = bucket
  end
  c.a = c.a + d
  if c.b then c.b = c.b + d end
  if d < 0 and (c.b == nil or c.b < 0) then c.b = 0 end
end

-- moves one entry of `key` from sort key `old` to `new` (either nil/false: added, removed) in its histogram
local function hist_move(key, old, new, expire_at)
  local b = bounds_of(key)
  if not b then return end
  local hist = key .. HIST
  local from = old and bucket_of(b, tonumber(old))
  local to = new and bucket_of(b, tonumber(new))
  if from == to then return end
  if from then hist_change(hist, from, -1) end
  if to then
    hist_change(hist, to, 1)
    if expire_at and expire_at > 0 then hist_expire[hist] = expire_at end
  end
end

-- one bucket's count: max(count + a, b), removed at 0 or below once floored
local function hist_write(hist, bucket, a, b)
  if b == nil then
    if a ~= 0 then redis.call('ZINCRBY', hist, a, bucket) end
    return
  end
  local n
  if a ~= 0 then
    n = tonumber(redis.call('ZINCRBY', hist, a, bucket))
  else
    local s = redis.call('ZSCORE', hist, bucket)
    if not s then
      if b > 0 then redis.call('ZADD', hist, b, bucket) end
      return
    end
    n = tonumber(s)
  end
  local stored = n
  if n < b then n = b end
  if n <= 0 then zrem(hist, bucket)
  elseif n ~= stored then redis.call('ZADD', hist, n, bucket) end
end

-- writes the counts changed so far (before anything deletes keys, and at the call's end)
local function hist_flush()
  for _, hist in ipairs(hist_keys) do
    local per = hist_changes[hist]
    for _, bucket in ipairs(per.order) do
      local c = per[bucket]
      hist_write(hist, bucket, c.a, c.b)
      record(hist, bucket)
    end
    if hist_expire[hist] then expire(hist, hist_expire[hist]) end
  end
  hist_keys, hist_changes, hist_expire = {}, {}, {}
end

-- forgets the bounds read (after UNLINKs)
local function forget_bounds()
  bounds_read = {}
end
