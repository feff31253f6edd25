--[[
  Removals by moderators (AdminService.DeleteEntry, WipeBoard) and the hides of the players above a
  board's ceiling (HideAboveCeiling), applied in log order with the players' scores, so a rebuild
  ends the same.

  DeleteEntry (OP_DELETE_ENTRY): the player's entries of every key of the board (its
  generations, periods and windows, hidden ones included) and their metadata go, as an erasure
  of that board (apply-erasure.lua's erase_from): O(keys of the shard) for the SCAN.

  WipeBoard (OP_WIPE): one record in every partition. The one of partition p removes from the
  board key (a period's) the entries of the players whose slot is p, found by the placement's
  hash (MurmurHash3 x86 32 of the id's bytes mod the partitions: model/src/murmur3.ts, here over
  Redis's bit library), hidden ones and metadata included. A player's entry thus goes exactly
  between its writes before and after the record of its own partition, whatever the order in
  which the shard applies its partitions. Cost: a pass over the key per record, O(n) hashes, so
  O(n x partitions of the shard) for the wipe; the key shrinks as the records come.

  HideAboveCeiling (OP_HIDE_ABOVE): one record in every partition, like a wipe. The one of partition
  p finds, in the board's key and its periods' (the windows have encodings of their own), the
  members whose sort key is below `limit` (more points than the ceiling: score-encoding.ts) and whose
  slot is p, and hides each on the board as a hide would (apply-moderation.lua). O(keys of the
  shard) for the SCANs, plus the members found.

  Input:  PARTITION (apply-input.lua); an event's key (DELETE_ENTRY, HIDE_ABOVE: the board's
          "<prefix>board:<name>"; WIPE: the period's board key), player, value (WIPE, HIDE_ABOVE:
          the log's partitions), limit (HIDE_ABOVE) and audit
  Output: delete_entry(ev), wipe(ev), hide_above(ev)
]]

local function imul(a, b)
  local alo, ahi = bit.band(a, 0xffff), bit.rshift(a, 16)
  local blo, bhi = bit.band(b, 0xffff), bit.rshift(b, 16)
  return bit.tobit(alo * blo + bit.lshift(bit.tobit(ahi * blo + alo * bhi), 16))
end

local function mix(k)
  k = imul(k, 0xcc9e2d51)
  k = bit.rol(k, 15)
  return imul(k, 0x1b873593)
end

-- the slot of a player id: MurmurHash3 x86 32 (seed 0) of its bytes, mod `slots`
local function slot_of(id, slots)
  local h, n = 0, #id
  local blocks = n - n % 4
  for i = 1, blocks, 4 do
    local b1, b2, b3, b4 = string.byte(id, i, i + 3)
    h = bit.bxor(h, mix(bit.bor(b1, bit.lshift(b2, 8), bit.lshift(b3, 16), bit.lshift(b4, 24))))
    h = bit.rol(h, 13)
    h = bit.tobit(imul(h, 5) + 0xe6546b64)
  end
  local tail = n % 4
  if tail > 0 then
    local k = 0
    if tail == 3 then k = bit.bxor(k, bit.lshift(string.byte(id, blocks + 3), 16)) end
    if tail >= 2 then k = bit.bxor(k, bit.lshift(string.byte(id, blocks + 2), 8)) end
    k = bit.bxor(k, string.byte(id, blocks + 1))
    h = bit.bxor(h, mix(k))
  end
  h = bit.bxor(h, n)
  h = bit.bxor(h, bit.rshift(h, 16))
  h = imul(h, 0x85ebca6b)
  h = bit.bxor(h, bit.rshift(h, 13))
  h = imul(h, 0xc2b2ae35)
  h = bit.bxor(h, bit.rshift(h, 16))
  if h < 0 then h = h + 4294967296 end
  return h % slots
end

local function delete_entry(ev)
  local player = ev.player
  each_key(ev.key, false, false, function(k)
    erase_from(k, player)
    erase_from(k .. META, player)
  end)
  each_key(ev.key, false, true, function(k) erase_from(k .. HID, player) end)
  audit(ev)
end

-- the players of `key` whose slot is this partition
local function members_here(key, slots)
  local out, mine = {}, tonumber(PARTITION)
  local total = redis.call('ZCARD', key)
  for start = 0, total - 1, 1000 do
    for _, m in ipairs(redis.call('ZRANGE', key, start, start + 999)) do
      local p = COLS.player_of(m)
      if slot_of(p, slots) == mine then out[#out + 1] = p end
    end
  end
  return out
end

local function wipe(ev)
  local key, slots = ev.key, ev.value
  for _, p in ipairs(members_here(key, slots)) do
    erase_from(key, p)
    erase_from(key .. META, p)
  end
  for _, p in ipairs(members_here(key .. HID, slots)) do erase_from(key .. HID, p) end
  if PARTITION == '0' then audit(ev) end -- one line for the whole wipe
end

local function hide_above(ev)
  local board, mine = board_of(ev.key), tonumber(PARTITION)
  local found, list = {}, {}
  each_key(ev.key, false, false, function(k)
    if not string.find(string.sub(k, #BOARD_PREFIX + 1), '~', 1, true) then
      for _, m in ipairs(redis.call('ZRANGEBYSCORE', k, '-inf', '(' .. int_arg(ev.limit))) do
        if not found[m] and slot_of(m, ev.value) == mine then
          found[m] = true
          list[#list + 1] = m
        end
      end
    end
  end)
  for _, p in ipairs(list) do
    local member = p .. '\n' .. board
    if redis.call('ZADD', HIDDEN_KEY, 0, member) == 1 then record(HIDDEN_KEY, member) end
  end
  if #list > 0 then
    any_hidden = true
    each_key(ev.key, false, false, function(k)
      for _, p in ipairs(list) do conceal(k, p) end
    end)
  end
  if PARTITION == '0' then audit(ev) end -- one line for the whole action
end
