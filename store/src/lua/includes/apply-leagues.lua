--[[
  Leagues (model/src/leagues.ts states the rules): placements in log order, cohorts of at most
  `size` filled by arrival per tier and bracket, tiers moved at each close, closes settled. Every
  event here is on the league's partition; its key is the league's period key (a placement) or
  the league's key "<prefix>board:<board>#<generation>" (a tier, a settlement).

  A placement (OP_PLACE; value: the cohort size, limit: the bracket + 1, prev: the period before,
  expire_at: the period's expiry): a player in "<key>!place" already changes nothing; so does one
  placed in the period before ("<league>@<prev>!place" holds it) while that period is not in
  "<league>!settled" (outcome 'settling': its close may move its tier); else its tier t is "<league>!tier"'s score mod 64 (0
  when absent), it takes seat k = "<key>!fill"["t<t>b<bracket>"] (then one more), and "<key>!place"
  gets the player with the cohort code (t x 128 + bracket) x 2^24 + floor(k / size). Outcome
  'placed'. Both period companions expire with the period.
  A tier (OP_TIER; value: the tier score, floor(period start / 1000 s) x 64 + tier): "<league>!tier"
  takes it unless it holds a score of a later period.
  A settlement (OP_SETTLED; prev: the period): "<league>!settled" gets the period.
  With a report id the outcome of a placement is kept for ingest (keep_outcome, 60 s). Every
  input is the record or an earlier record of the league's partition: a replay decides alike.

  Input:  BOARD_PREFIX (apply-input.lua), record (apply-journal.lua), expire (apply-expiry.lua),
          int_arg (scores.lua), keep_outcome (apply-tournaments.lua);
          an event's key, player, value, limit, prev, expire_at, report
  Output: league_place(ev), league_tier(ev), league_settled(ev)
]]
local COHORT_GROUP = 2 ^ 24

-- the league's key of a period key "<prefix>board:<board>#<generation>@<period>"
local function league_key_of(period_key)
  local at = string.find(period_key, '@', #BOARD_PREFIX + 1, true)
  return string.sub(period_key, 1, at - 1)
end

local function league_place(ev)
  local place = ev.key .. '!place'
  if redis.call('ZSCORE', place, ev.player) then
    keep_outcome(ev, 'placed')
    return
  end
  local league = league_key_of(ev.key)
  if ev.prev ~= '' and redis.call('ZSCORE', league .. '@' .. ev.prev .. '!place', ev.player)
    and not redis.call('ZSCORE', league .. '!settled', ev.prev) then
    keep_outcome(ev, 'settling')
    return
  end
  local tier = redis.call('ZSCORE', league .. '!tier', ev.player)
  tier = tier and (tonumber(tier) % 64) or 0
  local bracket = ev.limit - 1
  local fill = ev.key .. '!fill'
  local group = 't' .. tier .. 'b' .. bracket
  local seat = tonumber(redis.call('ZINCRBY', fill, 1, group)) - 1
  record(fill, group)
  local code = (tier * 128 + bracket) * COHORT_GROUP + math.floor(seat / ev.value)
  redis.call('ZADD', place, int_arg(code), ev.player)
  record(place, ev.player)
  if ev.expire_at > 0 then
    expire(place, ev.expire_at)
    expire(fill, ev.expire_at)
  end
  keep_outcome(ev, 'placed')
end

local function league_tier(ev)
  local tiers = ev.key .. '!tier'
  local now = redis.call('ZSCORE', tiers, ev.player)
  if now and math.floor(tonumber(now) / 64) > math.floor(ev.value / 64) then return end
  redis.call('ZADD', tiers, int_arg(ev.value), ev.player)
  record(tiers, ev.player)
end

local function league_settled(ev)
  local settled = ev.key .. '!settled'
  if redis.call('ZADD', settled, 'NX', 0, ev.prev) == 1 then record(settled, ev.prev) end
end
