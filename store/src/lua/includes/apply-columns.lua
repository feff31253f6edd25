--[[
  Scores of a board with columns (model/src/columns.ts): the player's member holds its values in
  order, so a write replaces the member (ZREM the old, ZADD the new, both at score 0) and its
  companion entry "<player>\n<order part>" in "<key>!cols".

  SET takes the event's column part; BEST keeps the current one when it is not behind the event's
  (byte order of the parts is the board's order of the values); INCREMENT adds each column's delta
  to its value, saturating at the int64 range's ends. Values left as they were keep the entry's
  time (the player reached them earlier), as on a one-column board.

  Arithmetic: a column's index is 16 hex digits; its value biased by 2^63 is the index itself when
  lower is better and the index's complement (each digit 15 - d) when higher is better. The biased
  value is added to as four 16-bit limbs: every intermediate is an integer below 2^17, exact in
  Lua's doubles. A carry out of the top limb is the int64 maximum, a borrow the minimum.

  Cost: one ZRANGEBYLEX (the companion), two ZREMs and two ZADDs per change; no change stream
  (a board with columns has no watchers: router/src/read/queries.ts refuses them).

  Input:  an event (apply-input.lua): key, player, op (OP_SET, OP_BEST, OP_INCREMENT; OP_REMOVE),
          cols (SET, BEST: the column part; INCREMENT: per column 'l'/'h', '+'/'-' and 16 hex
          digits of the delta's magnitude; REMOVE: '-'), ctime (the time part), ttl, expire_at, metadata
  Output: COLS.apply(ev), COLS.remove(key, player): true when an entry went
]]
-- one block: its helpers are no locals of the whole script (sorted-sets.lua's COLS)
do
  local NOT_DIGIT = {}
  for d = 0, 15 do NOT_DIGIT[string.format('%x', d)] = string.format('%x', 15 - d) end

  local function complement(h)
    return (string.gsub(h, '.', NOT_DIGIT))
  end

  local function limbs(h)
    return { tonumber(string.sub(h, 1, 4), 16), tonumber(string.sub(h, 5, 8), 16), tonumber(string.sub(h, 9, 12), 16), tonumber(string.sub(h, 13, 16), 16) }
  end

  -- biased value `a` (16 hex digits) plus (sign '+') or minus ('-') magnitude `b`, saturated to [0, 2^64 - 1]
  local function add_biased(a, sign, b)
    local x, y, out, carry = limbs(a), limbs(b), {}, 0
    for i = 4, 1, -1 do
      local s
      if sign == '+' then s = x[i] + y[i] + carry else s = x[i] - y[i] - carry end
      carry = 0
      if s >= 65536 then s, carry = s - 65536, 1 elseif s < 0 then s, carry = s + 65536, 1 end
      out[i] = s
    end
    if carry == 1 then return sign == '+' and 'ffffffffffffffff' or '0000000000000000' end
    return string.format('%04x%04x%04x%04x', out[1], out[2], out[3], out[4])
  end

  -- the column part after adding `deltas` to `part` (nil: every value 0)
  local function add_columns(part, deltas)
    local out = {}
    for i = 0, #deltas / 18 - 1 do
      local d = string.sub(deltas, i * 18 + 1, i * 18 + 18)
      local lower = string.sub(d, 1, 1) == 'l'
      local idx
      if part then idx = string.sub(part, i * 16 + 1, i * 16 + 16)
      elseif lower then idx = '8000000000000000' -- value 0: 0 + 2^63
      else idx = '7fffffffffffffff' end -- value 0: 2^63 - 1 - 0
      local biased = lower and idx or complement(idx)
      biased = add_biased(biased, string.sub(d, 2, 2), string.sub(d, 3))
      out[#out + 1] = lower and biased or complement(biased)
    end
    return table.concat(out)
  end

  -- the player's entry of `key`, whose order part is `part`, gone with its companion entry; true when there was one
  local function drop(key, player, part)
    local member, entry = part .. COLS.sep .. player, player .. '\n' .. part
    zrem(key .. COLS.suffix, entry)
    record(key .. COLS.suffix, entry)
    if zrem(key, member) == 0 then return false end
    record(key, member)
    mirror(key, member)
    return true
  end

  -- the player's entry of `key` gone with its companion entry; true when there was one
  function COLS.remove(key, player)
    local part = COLS.part(key, player)
    return part ~= nil and drop(key, player, part)
  end

  function COLS.apply(ev)
    local key, player, cols = ev.key, ev.player, ev.cols
    local part = COLS.part(key, player)
    local width = (ev.op == OP_INCREMENT) and (#cols / 18 * 16) or #cols
    local old = part and string.sub(part, 1, width)
    local new = cols
    if ev.op == OP_INCREMENT then
      new = add_columns(old, cols)
    elseif ev.op == OP_BEST and old and not bytes_less(cols, old) then
      new = old
    end
    if new ~= old then
      if part then drop(key, player, part) end
      local now = new .. ev.ctime
      local member, entry = now .. COLS.sep .. player, player .. '\n' .. now
      redis.call('ZADD', key, 0, member)
      record(key, member)
      redis.call('ZADD', key .. COLS.suffix, 0, entry)
      record(key .. COLS.suffix, entry)
      for _, k in ipairs({ key, key .. COLS.suffix }) do
        if ev.ttl > 0 and redis.call('TTL', k) == -1 then redis.call('EXPIRE', k, ev.ttl) end
        if ev.expire_at > 0 then expire(k, ev.expire_at) end
      end
      mirror(key, member)
    end
    if ev.metadata ~= '' then set_meta(key, player, ev.metadata, ev.expire_at) end
  end
end
