--[[
  Scores (OP_SET, OP_INCREMENT, OP_BEST) and a board left (OP_REMOVE). Sort keys: scores.lua.
  BEST keeps the better of the current points and the value by the board's order. An update
  that leaves the points unchanged keeps the old time (the player reached that score earlier).
  Results saturate at the board's [minPoints, maxPoints]. A board key with a ttl gets it at its
  first write; a period's key (expire_at > 0) expires then (PEXPIREAT): a replay past the
  period's retention deletes the key here, as the clock would have.

  Input:  an event (apply-input.lua; pack-event.ts): key, player, op, value, time_idx, enc, ttl,
          expire_at, hist, metadata, report, windows
  A board with columns has scores of its own (apply-columns.lua): events carrying `cols` go there.

  Output: apply_score(ev), apply_remove(ev)
]]

-- the points an update leaves, from the current points (nil: none)
local function new_points(ev, old_points)
  local points = ev.value
  if old_points ~= nil then
    if ev.op == OP_INCREMENT then
      points = old_points + ev.value
    elseif ev.op == OP_BEST and ((not ev.enc.lower and old_points > ev.value) or (ev.enc.lower and old_points < ev.value)) then
      points = old_points
    end
  end
  if points > ev.enc.max_points then points = ev.enc.max_points end
  if points < ev.enc.min_points then points = ev.enc.min_points end
  return points
end

local function apply_score(ev)
  if ev.cols ~= '' then return COLS.apply(ev) end
  local key, player, md, expire_at = ev.key, ev.player, ev.metadata, ev.expire_at
  local current = redis.call('ZSCORE', key, player)
  local ahead_before = -1
  if ev.report ~= '' and current then ahead_before = rank_seen(key, player, current) end
  local old_points = nil
  if current then old_points = points_of(tonumber(current), ev.enc) end
  local points = new_points(ev, old_points)
  local moved = points ~= old_points
  -- the event's own period part, as the windows read it: known while the key surely stays (nil: read it)
  local own = nil
  -- metadata first: a board's first appends its marker to the change stream before the entry's change (apply-metadata.lua)
  if md ~= '' then set_meta(key, player, md, expire_at) end
  if moved then
    local new_key = sort_key(points, ev.time_idx, ev.enc)
    redis.call('ZADD', key, int_arg(new_key), player)
    record(key, player)
    hist_ensure(key, ev.hist, expire_at)
    entry_moved(key, player, current, new_key, expire_at)
    if ev.ttl > 0 and redis.call('TTL', key) == -1 then redis.call('EXPIRE', key, ev.ttl) end
    if expire_at > 0 then expire(key, expire_at) end
    if expire_at == 0 or expire_at > REMEMBER_AFTER_MS then own = new_key end
    mirror(key, player)
  end
  if ev.report ~= '' then
    local now, ahead_after = position_of(key, player)
    report_change(ev.report, key, current or '', ahead_before, now, ahead_after)
  end
  if ev.windows and (moved or md ~= '') then refresh_windows(ev, moved, md, own) end
end

local function apply_remove(ev)
  local key, player = ev.key, ev.player
  if ev.cols ~= '' then
    if COLS.remove(key, player) then drop_meta(key, player) end
    return
  end
  local was = redis.call('ZSCORE', key, player)
  if zrem(key, player) == 1 then
    record(key, player)
    drop_meta(key, player)
    entry_moved(key, player, was, nil)
    mirror(key, player)
    if ev.windows then refresh_windows(ev, true, '', false) end
  end
end
