--[[
  Tournaments (model/src/tournaments.ts states the rules): joins admitted in log order up to the
  size limit, memberships, and each member's attempts counted before its write applies.

  A join (OP_JOIN, on the tournament's partition): its key is the tournament's period key; the
  members are "<key>!join" (member: player, score: the join's offset). A member joining again
  changes nothing; a join whose ingest time (ingested_ms) is at or after the end (limit) is
  refused; with value (max_size, 0: no limit) members already, refused; else admitted.
  A membership (OP_MEMBER, on the player's partition): "<key>!att" gets the player with 0
  attempts used, unless it holds it.
  A write to a tournament (an event with `tour` = { join, max }): before it applies, the player's
  attempts in "<key>!att": absent and `join` (a member is required): refused, 'not-member';
  `max` (> 0) used: refused, 'attempts'; else one more attempt and the write applies. With a
  report id the outcome is kept for ingest in "<prefix>outcome:<id>" (60 s; not the
  log's state): 'ok', 'not-member' or 'attempts'. Every input is the record or an earlier record
  of the same partition: a replay decides alike. Both companions expire with the period's key.

  Input:  KEY_PREFIX (apply-input.lua), record (apply-journal.lua), expire (apply-expiry.lua);
          an event's key, player, offset, value, limit, ingested_ms, expire_at, report, tour
  Output: join_tournament(ev), tournament_member(ev), tournament_gate(ev) -> whether the write
          may apply; keep_outcome(ev, outcome)
]]
local OUTCOME_KEPT_MS = 60000

local function keep_outcome(ev, outcome)
  if ev.report == '' then return end
  local k = KEY_PREFIX .. 'outcome:' .. ev.report
  redis.call('SET', k, outcome, 'PX', OUTCOME_KEPT_MS)
end

local function join_tournament(ev)
  local members = ev.key .. '!join'
  if redis.call('ZSCORE', members, ev.player) then return end
  if ev.ingested_ms >= ev.limit then return end
  if ev.value > 0 and redis.call('ZCARD', members) >= ev.value then return end
  redis.call('ZADD', members, int_arg(ev.offset), ev.player)
  record(members, ev.player)
  if ev.expire_at > 0 then expire(members, ev.expire_at) end
end

local function tournament_member(ev)
  local attempts = ev.key .. '!att'
  if redis.call('ZADD', attempts, 'NX', 0, ev.player) == 1 then record(attempts, ev.player) end
  if ev.expire_at > 0 then expire(attempts, ev.expire_at) end
end

local function tournament_gate(ev)
  local attempts = ev.key .. '!att'
  local used = redis.call('ZSCORE', attempts, ev.player)
  if not used and ev.tour.join then
    keep_outcome(ev, 'not-member')
    return false
  end
  used = tonumber(used or '0')
  if ev.tour.max > 0 and used >= ev.tour.max then
    keep_outcome(ev, 'attempts')
    return false
  end
  redis.call('ZADD', attempts, used + 1, ev.player)
  record(attempts, ev.player)
  if ev.expire_at > 0 then expire(attempts, ev.expire_at) end
  keep_outcome(ev, 'ok')
  return true
end
