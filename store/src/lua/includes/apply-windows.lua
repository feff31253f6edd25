--[[
  Windows (common/src/windows.ts): on a board with windows, an event whose period score changed
  (or that left the period) recomputes the player's entries of the windows ending in its period
  P0 and the n - 1 periods after it, from the player's scores in the 2N - 1 periods the event
  lists around P0: BEST is the smallest part key (the board's own encoding); SUM decodes each
  part into points and time units, adds the points, keeps the latest time, and encodes the pair
  in the window's encoding, the time counted from the window's first time unit (clamped to the
  encoding's last unit). A window entry that does not change is not written; one with no part
  left is removed.

  Input:  an event's `windows` (store/src/writer/pack-event.ts): { keys (the KEYS indices of the
          2N - 1 period keys P(-(N-1)) .. P(N-1)), around = N, tie (TIE_*), list = the windows,
          each { combine (COMBINE_*), periods = n, keys (the KEYS indices of its keys ending in
          P0 .. P(n-1)), enc (its encoding: SUM), hist (0 or an index
          into HISTOGRAMS), bases (the first time unit of the window ending in P(j)), expire_at
          (its expiry, Unix ms) } }
  Output: refresh_windows(ev, recompute, md, own)
]]

-- the key of the window entry ending in P(j) from the parts P(N - n + j) .. P(N - 1 + j); nil when none
local function combined(w, parts, N, j, ev_enc, tie)
  local new = nil
  if w.combine == COMBINE_BEST then
    for k = N - w.periods + j, N - 1 + j do
      local s = parts[k]
      if s and (new == nil or s < new) then new = s end
    end
    return new
  end
  local sum, latest = nil, 0
  for k = N - w.periods + j, N - 1 + j do
    local s = parts[k]
    if s then
      sum = (sum or 0) + points_of(s, ev_enc)
      local unit = time_unit_of(time_idx_of(s, ev_enc), tie, ev_enc.time_units)
      if unit > latest then latest = unit end
    end
  end
  if not sum then return nil end
  local units = latest - w.bases[j + 1]
  if units < 0 then units = 0 elseif units > w.enc.time_units - 1 then units = w.enc.time_units - 1 end
  return sort_key(sum, fold_time(units, tie, w.enc.time_units), w.enc)
end

-- writes the player's entry of window key `key` (its expiry `expire_at`) as `new` (nil: removed)
local function set_window_entry(key, player, new, expire_at, hist)
  local cur = redis.call('ZSCORE', key, player)
  if new == nil then
    if cur then
      zrem(key, player)
      record(key, player)
      drop_meta(key, player)
      entry_moved(key, player, cur, nil)
      mirror(key, player)
    end
  elseif not cur or tonumber(cur) ~= new then
    redis.call('ZADD', key, int_arg(new), player)
    record(key, player)
    expire(key, expire_at)
    hist_ensure(key, hist, expire_at)
    entry_moved(key, player, cur, new, expire_at)
    mirror(key, player)
  end
end

-- Recomputes the player's entries of the event's windows when `recompute`, and keeps `md` (when
-- not '') with each entry there is. `own`: the player's sort key in the event's own period P0 as
-- the event left it (false: none), not read again; nil: read it.
local function refresh_windows(ev, recompute, md, own)
  local ws, player = ev.windows, ev.player
  local N = ws.around
  local parts = {}
  for k = 0, recompute and 2 * N - 2 or -1 do
    local key = KEYS[ws.keys[k + 1]]
    if k == N - 1 and own ~= nil and key == ev.key then
      parts[k] = own or nil
    else
      local s = redis.call('ZSCORE', key, player)
      if s then parts[k] = tonumber(s) end
    end
  end
  for _, w in ipairs(ws.list) do
    for j = 0, w.periods - 1 do
      local key, expire_at = KEYS[w.keys[j + 1]], w.expire_at[j + 1]
      local new
      if recompute then
        new = combined(w, parts, N, j, ev.enc, ws.tie)
        set_window_entry(key, player, new, expire_at, w.hist)
      else
        -- the scores stay as they are: only the metadata of the entries there are
        new = redis.call('ZSCORE', key, player)
      end
      if new and md ~= '' then set_meta(key, player, md, expire_at) end
    end
  end
end
