--[[
  Moderation (AdminService.HidePlayer, UnhidePlayer): records of the score log applied in log
  order with the player's scores, so a rebuild or a snapshot's replay ends the same.

  Hidden players. "<prefix>board:~hidden" (a sorted set, score 0) holds one member
  "<player>\n<board>" per hide, "<player>\n" for every board ('~' and '\n' are in no board name
  nor player id). A hidden player's entry of a board key K is not in K but in its companion
  "K!hid" (same sort key, same expiry), so every read's ZCOUNT, ZRANK and range leaves it out
  and the ranks behind it close the gap; the readers need no change. A hide moves the player's
  entries of every key of the board (its generations, periods and windows: a SCAN of
  "K[#@~]*", or of every board key for a hide everywhere, O(keys of the shard)) into their
  companions; an unhide moves them back unless another hide still holds. A later write of a
  hidden player (with_hidden) moves its entries of the keys the event touches back for the
  event, applies it as any other, and moves them out again in the same call, with the change
  stream off (watchers hear nothing of a hidden player); its histogram counts move out and in
  and end unchanged. Metadata stays in "K!meta" (read only for listed players). One EXISTS per
  call when nobody is hidden; otherwise two ZSCOREs per score event.

  Audit. Every action, applied or not, adds its line (a JSON object made by prepare-event.ts,
  holding the record's offset) to "<prefix>board:~audit" (score: when it was written, Unix ms),
  which AdminService's audit rpc reads. Both keys are under "board:", so snapshots keep them.

  Input:  BOARD_PREFIX (apply-input.lua); an event's op (OP_HIDE, OP_UNHIDE), key (the board's
          key "<prefix>board:<name>", or BOARD_PREFIX for every board), value (1: every board),
          player, ingested_ms and audit (the JSON line)
  Output: hide(ev), unhide(ev), with_hidden(ev, fn), HID (the companion's suffix)
]]
local HID = '!hid'
local HIDDEN_KEY = BOARD_PREFIX .. '~hidden'
local AUDIT_KEY = BOARD_PREFIX .. '~audit'
local any_hidden = redis.call('EXISTS', HIDDEN_KEY) == 1

-- a board key's board name: what comes before its generation, period, window or companion
local function board_of(key)
  return string.match(string.sub(key, #BOARD_PREFIX + 1), '^[^#@~!]*')
end

local function is_hidden(player, key)
  if not any_hidden then return false end
  return redis.call('ZSCORE', HIDDEN_KEY, player .. '\n') ~= false
    or redis.call('ZSCORE', HIDDEN_KEY, player .. '\n' .. board_of(key)) ~= false
end

-- the player's entry of `from` into `to` (same sort key; a `to` made here takes `from`'s
-- expiry), on a board with columns with its companion entry; returns its sort key, that expiry
-- and its member, or nothing
local function carry(from, to, player)
  local member, s = COLS.member_of(from, player)
  if not s then return nil end
  local at = redis.call('PEXPIRETIME', from)
  local made = redis.call('EXISTS', to) == 0
  zrem(from, member)
  record(from, member)
  redis.call('ZADD', to, s, member)
  record(to, member)
  if made and at > 0 then expire(to, at) end
  if member ~= player then
    local entry = player .. '\n' .. string.sub(member, 1, #member - #player - 1)
    zrem(from .. COLS.suffix, entry)
    record(from .. COLS.suffix, entry)
    redis.call('ZADD', to .. COLS.suffix, 0, entry)
    record(to .. COLS.suffix, entry)
    if at > 0 then expire(to .. COLS.suffix, at) end
  end
  return s, at, member
end

-- K's entry of the player into K!hid (a board with columns is in no change stream)
local function conceal(key, player)
  local s, at, member = carry(key, key .. HID, player)
  if s then
    if member == player then entry_moved(key, player, s, nil, at) end
    mirror(key, member)
  end
end

-- K!hid's entry of the player back into K
local function reveal(key, player)
  local s, at, member = carry(key .. HID, key, player)
  if s then
    if member == player then entry_moved(key, player, nil, s, at) end
    mirror(key, member)
  end
end

-- `key` as a literal in a glob pattern
local function glob_escape(s)
  return (string.gsub(s, '[%*%?%[%]\\]', '\\%0'))
end

-- calls fn(k) with every board key of board `key` (every board key when `all`), companions and
-- the shard's own "~" keys left out; with `hid`, with every "!hid" companion instead (its key)
local function each_key(key, all, hid, fn)
  local patterns
  if all then patterns = { glob_escape(BOARD_PREFIX) .. '*' }
  else patterns = { glob_escape(key), glob_escape(key) .. '[#@~]*' } end
  if hid then
    for i, p in ipairs(patterns) do patterns[i] = p .. HID end
  end
  local tilde = BOARD_PREFIX .. '~'
  for _, pattern in ipairs(patterns) do
    local cursor = '0'
    repeat
      local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
      cursor = page[1]
      for _, k in ipairs(page[2]) do
        if string.sub(k, 1, #tilde) ~= tilde then
          if hid then
            if string.sub(k, -#HID) == HID and not string.find(string.sub(k, 1, -#HID - 1), '!', #BOARD_PREFIX + 1, true) then
              fn(string.sub(k, 1, -#HID - 1))
            end
          elseif not string.find(k, '!', #BOARD_PREFIX + 1, true) then
            fn(k)
          end
        end
      end
    until cursor == '0'
  end
end

local function audit(ev)
  if ev.audit == '' then return end
  redis.call('ZADD', AUDIT_KEY, int_arg(ev.ingested_ms), ev.audit)
  record(AUDIT_KEY, ev.audit)
end

local function hide(ev)
  local all, player = ev.value == 1, ev.player
  local member = player .. '\n' .. (all and '' or board_of(ev.key))
  if redis.call('ZADD', HIDDEN_KEY, 0, member) == 1 then record(HIDDEN_KEY, member) end
  any_hidden = true
  each_key(ev.key, all, false, function(k) conceal(k, player) end)
  audit(ev)
end

local function unhide(ev)
  local all, player = ev.value == 1, ev.player
  local gone = { player .. '\n' .. (all and '' or board_of(ev.key)) }
  if all then gone = redis.call('ZRANGEBYLEX', HIDDEN_KEY, '[' .. player .. '\n', '(' .. player .. '\v') end
  for _, m in ipairs(gone) do
    if redis.call('ZREM', HIDDEN_KEY, m) == 1 then record(HIDDEN_KEY, m) end
  end
  any_hidden = redis.call('EXISTS', HIDDEN_KEY) == 1
  each_key(ev.key, all, true, function(k)
    if not is_hidden(player, k) then reveal(k, player) end
  end)
  audit(ev)
end

-- the board keys an event writes: its own, and on a board with windows its periods' and windows'
local function keys_of(ev)
  local keys = { ev.key }
  local ws = ev.windows
  if ws then
    for _, i in ipairs(ws.keys) do keys[#keys + 1] = KEYS[i] end
    for _, w in ipairs(ws.list) do
      for _, i in ipairs(w.keys) do keys[#keys + 1] = KEYS[i] end
    end
  end
  return keys
end

-- fn(ev), the event's entries of a hidden player brought back for it and hidden again after
local function with_hidden(ev, fn)
  if not is_hidden(ev.player, ev.key) then return fn(ev) end
  local keys, player, watched = keys_of(ev), ev.player, changes_on
  changes_on = false
  for _, k in ipairs(keys) do reveal(k, player) end
  fn(ev)
  for _, k in ipairs(keys) do conceal(k, player) end
  changes_on = watched
end
