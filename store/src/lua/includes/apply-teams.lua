--[[
  Team boards (model/src/teams.ts states the rules): memberships on the players' partitions, and
  members' contributions on the teams' partitions, each team's entry set from them. Both keyed by
  the team board's key K.

  A membership (OP_TEAM_MEMBER; team: the team joined, '' none): "K!team" holds "<player>\n<team>"
  for the player's one team; the team it had goes to "K!left" ("<player>\n<team>"), the team it
  joins leaves "K!left". The same team again changes nothing.
  A contribution (OP_CONTRIBUTION; team, value: the member's points, limit: as_of + 1, left: it
  left the team, best: the members a team counts, 0 for all): nothing unless as_of is above
  "K!v:<team>"[player]; else that becomes as_of, "K!m:<team>" gets the member's points (or loses
  the member, when it left), and the team's points are the sum of "K!m:<team>" (kept in "K!sum",
  SUM) or of its best `best` (BEST, by the board's order). The team's entry in K is then set to
  them as a SET would (apply_score: its time kept when its points did not change), or removed when
  the team has no member left.

  Input:  record (apply-journal.lua), zrem (apply-expiry.lua), int_arg (scores.lua),
          apply_score, apply_remove (apply-scores.lua); an event's key, player, team, value,
          limit, left, best, time_idx, enc, hist
  Output: team_member(ev), team_contribution(ev)
]]
local function team_member(ev)
  local members, left = ev.key .. '!team', ev.key .. '!left'
  local now = redis.call('ZRANGEBYLEX', members, '[' .. ev.player .. '\n', '(' .. ev.player .. '\v', 'LIMIT', 0, 1)[1]
  local joins = ev.team ~= '' and (ev.player .. '\n' .. ev.team) or nil
  if now == joins then return end
  if now then
    zrem(members, now)
    record(members, now)
    redis.call('ZADD', left, 0, now)
    record(left, now)
  end
  if joins then
    redis.call('ZADD', members, 0, joins)
    record(members, joins)
    if zrem(left, joins) == 1 then record(left, joins) end
  end
end

local function team_contribution(ev)
  local team, player = ev.team, ev.player
  local points_key, seen_key, sum_key = ev.key .. '!m:' .. team, ev.key .. '!v:' .. team, ev.key .. '!sum'
  local as_of = ev.limit - 1
  local seen = redis.call('ZSCORE', seen_key, player)
  if seen and tonumber(seen) >= as_of then return end
  redis.call('ZADD', seen_key, int_arg(as_of), player)
  record(seen_key, player)
  local old = tonumber(redis.call('ZSCORE', points_key, player) or '0')
  local new = 0
  if ev.left then
    if zrem(points_key, player) == 1 then record(points_key, player) end
  else
    new = ev.value
    redis.call('ZADD', points_key, int_arg(new), player)
    record(points_key, player)
  end
  local total
  if ev.best > 0 then
    local best
    if ev.enc.lower then best = redis.call('ZRANGE', points_key, 0, ev.best - 1, 'WITHSCORES')
    else best = redis.call('ZRANGE', points_key, 0, ev.best - 1, 'REV', 'WITHSCORES') end
    total = 0
    for i = 2, #best, 2 do total = total + tonumber(best[i]) end
  else
    total = tonumber(redis.call('ZINCRBY', sum_key, int_arg(new - old), team))
    record(sum_key, team)
  end
  if redis.call('EXISTS', points_key) == 0 then
    if ev.best == 0 and zrem(sum_key, team) == 1 then record(sum_key, team) end
    -- (events made here take every other field's default, as decoded events do: apply-input.lua)
    apply_remove(setmetatable({ key = ev.key, player = team, windows = false }, EVENT_DEFAULTS))
    return
  end
  apply_score(setmetatable({
    key = ev.key, player = team, op = OP_SET, value = total, time_idx = ev.time_idx, enc = ev.enc, ttl = 0,
    expire_at = 0, hist = ev.hist, metadata = '', report = '', windows = false,
  }, EVENT_DEFAULTS))
end
