--[[
  Histograms (BoardRules.histogram_bounds): a board key with a histogram has two companions:
  "<key>!hbounds", bucket i -> the first sort key of bucket i (written once, from the event's
  bounds, when the key gets its first entry), and "<key>!hist", bucket i -> its entries. Every
  entry added, moved or removed moves one count: its bucket is the hbounds member with the
  greatest score <= its key (ZRANGE ... BYSCORE REV LIMIT 0 1), so an erasure, which does not
  know the board's rules, keeps the counts right too. They expire with their key.

  Input:  HISTOGRAMS (apply-input.lua: the call's bound lists, each n sort keys ascending)
  Output: HIST, HBOUNDS (the companions' suffixes), hist_ensure(key, h, expire_at),
          hist_move(key, old, new, expire_at)
]]
local HIST, HBOUNDS = '!hist', '!hbounds'

-- gives `key` the bucket bounds HISTOGRAMS[h] unless it has them (h = 0: no histogram)
local function hist_ensure(key, h, expire_at)
  if h == 0 then return end
  local bounds = key .. HBOUNDS
  if redis.call('EXISTS', bounds) == 1 then return end
  for i, first in ipairs(HISTOGRAMS[h]) do
    redis.call('ZADD', bounds, first, tostring(i - 1))
    record(bounds, tostring(i - 1))
  end
  if expire_at > 0 then
    redis.call('PEXPIREAT', bounds, expire_at)
    redis.call('PEXPIREAT', key .. HIST, expire_at)
  end
end

-- moves one entry of `key` from sort key `old` to `new` (either nil/false: added, removed) in its histogram
local function hist_move(key, old, new, expire_at)
  local bounds = key .. HBOUNDS
  if redis.call('EXISTS', bounds) == 0 then return end
  local hist = key .. HIST
  local function bucket(k) return redis.call('ZRANGE', bounds, k, '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 1)[1] end
  local from = old and bucket(old)
  local to = new and bucket(new)
  if from == to then return end
  if from then
    if tonumber(redis.call('ZINCRBY', hist, -1, from)) <= 0 then redis.call('ZREM', hist, from) end
    record(hist, from)
  end
  if to then
    redis.call('ZINCRBY', hist, 1, to)
    record(hist, to)
    if expire_at and expire_at > 0 then redis.call('PEXPIREAT', hist, expire_at) end
  end
end
