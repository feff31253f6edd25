--[[
  The score encoding, in Lua (its twin: common/src/score-encoding.ts, pointsIndex, encodeSortKey
  and decodeSortKey; store/src/score-encoding.int.test.ts checks that both agree on edge values).
  The writer passes what it can compute (the time index, already folded by the board's tie rule);
  only what depends on a stored key is computed here: the points a key holds, and the key of new
  points (an INCREMENT or a BEST on the current score, a window's SUM).

    key = pointsIdx * timeUnits + timeIdx,  pointsIdx = maxPoints - points  (higher is better)
                                                        points - minPoints  (lower is better)

  An encoding `enc` is a table { max_points, min_points, time_units, lower } (lower: true when
  lower points rank first). timeUnits is a power of two, so the division below is exact.

  Input:  none (functions only)
  Output: points_of, time_idx_of, sort_key, time_unit_of, fold_time, int_arg
]]

-- a whole number as a command argument: written by '%d' (Lua's own conversion of a number is
-- '%.17g', a multiprecision printf that cost ~10% of Redis's CPU in the apply bench); any other
-- number as it is
local function int_arg(x)
  if x == math.floor(x) and x > -9007199254740992 and x < 9007199254740992 then return string.format('%d', x) end
  return x
end

-- the points a sort key holds
local function points_of(key, enc)
  local idx = math.floor(key / enc.time_units)
  if enc.lower then return enc.min_points + idx end
  return enc.max_points - idx
end

-- the time index a sort key holds (as stored: folded by the tie rule)
local function time_idx_of(key, enc)
  return key - math.floor(key / enc.time_units) * enc.time_units
end

-- the sort key of `points` (inside the encoding's range) at stored time index `time_idx`
local function sort_key(points, time_idx, enc)
  local idx = enc.max_points - points
  if enc.lower then idx = points - enc.min_points end
  return idx * enc.time_units + time_idx
end

-- the time unit (counted from the epoch) a stored time index stands for under tie rule `tie`
-- (TIE_ID: 0); fold_time is its inverse
local function time_unit_of(time_idx, tie, time_units)
  if tie == TIE_LATEST then return time_units - 1 - time_idx end
  if tie == TIE_ID then return 0 end
  return time_idx
end

local function fold_time(unit, tie, time_units)
  return time_unit_of(unit, tie, time_units)
end
