--[[
  The histogram reads (apply-histograms.lua keeps the counts): a board key's buckets without its
  exclusion (read-header.lua, Moves).

  Input:  none (functions only; read-header.lua's primitives)
  Output: read_histogram, read_histogram_at
]]
-- The excluded entries of each histogram bucket of `board` (bucket -> count), or false.
local function excl_buckets(board)
  local e = excl_of(board)
  if not e then return false end
  local bounds = redis.call('ZRANGE', board .. '!hbounds', 0, -1, 'WITHSCORES')
  local minus = {}
  for i = 1, #bounds, 2 do
    local hi = '+inf'
    if bounds[i + 3] then hi = '(' .. bounds[i + 3] end
    minus[bounds[i]] = redis.call('ZCOUNT', e, bounds[i + 1], hi)
  end
  return minus
end


-- read-batch.lua's 'h': a board key's histogram (apply-events.lua): { 0, card, bucket1, count1, ... },
-- buckets in sort-key order, empty ones left out.
-- read-batch.lua's 'H': the counts around stored bucket j of a board key's histogram: { 0, card,
-- the entries of the buckets before j, the entries of bucket j }. O(buckets) in the script, 4 numbers out.
local function read_histogram_at(board, j)
  local counts = redis.call('ZRANGE', board .. '!hist', 0, -1, 'WITHSCORES')
  local minus = excl_buckets(board)
  local better, at = 0, 0
  for i = 1, #counts, 2 do
    local b = tonumber(counts[i])
    local c = tonumber(counts[i + 1]) - (minus and minus[counts[i]] or 0)
    if b < j then better = better + c elseif b == j then at = c end
  end
  return { READ_OK, card_of(board), better, at }
end

local function read_histogram(board)
  local out = { READ_OK, card_of(board) }
  local counts = redis.call('ZRANGE', board .. '!hist', 0, -1, 'WITHSCORES')
  local minus = excl_buckets(board)
  if not minus then
    for i = 1, #counts do out[#out + 1] = counts[i] end
    return out
  end
  -- as ZRANGE would list the buckets without the exclusion: by count, then bucket bytes
  local left = {}
  for i = 1, #counts, 2 do
    local c = tonumber(counts[i + 1]) - (minus[counts[i]] or 0)
    if c > 0 then left[#left + 1] = { counts[i], c } end
  end
  table.sort(left, function(x, y)
    if x[2] ~= y[2] then return x[2] < y[2] end
    return bytes_less(x[1], y[1])
  end)
  for _, b in ipairs(left) do
    out[#out + 1] = b[1]
    out[#out + 1] = tostring(b[2])
  end
  return out
end
