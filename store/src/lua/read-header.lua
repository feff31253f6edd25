--[[
  Shared prologue of the read scripts (prepended to each when it is loaded).

  A shard answers reads only while its shard node says the data may be served: the node
  keeps a heartbeat key (PX = heartbeat TTL) holding the shard's stamp (store/src/identity.ts:
  shard id, topic, slots, board specs) while it serves, and the reason while it does not
  (heartbeat.lua). A read passes its own stamp of the shard and is answered only when the
  two are equal: never a stale or partial board, and never one built from other slots or
  board specs than the reader's. The caller explains a refusal from the key's value.

  It also holds the reads themselves, as functions: each read script checks the shard, then
  calls one (read-top.lua, read-window.lua, read-standing.lua, read-entry.lua say what each
  returns); read-batch.lua checks once and calls several. Each returns its script's whole
  reply, status 0 first.

  Status codes (first element of every read reply):
     0  OK
    -1  SHARD_DOWN    no heartbeat: the shard node is not running
    -2  MISMATCH      the heartbeat is not the reader's stamp: not serving (and why), or
                      built from another configuration
]]
local function check_shard(heartbeat_key, expected_stamp)
  local value = redis.call('GET', heartbeat_key)
  if not value then return -1 end
  if value ~= expected_stamp then return -2 end
  return 0
end

-- memcmp-style byte order of two strings (Lua's < uses strcoll, which is locale-dependent).
local function bytes_less(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- Appends to `out` the first shard rank of a window, then the entries of `board` at shard ranks
-- [center - radius, center + radius] (clipped at 0) with their keys; with radius 0, only `center`.
local function append_window(out, board, center, radius)
  if radius <= 0 then
    out[#out + 1] = center
    return out
  end
  local start = center - radius
  if start < 0 then start = 0 end
  out[#out + 1] = start
  local range = redis.call('ZRANGE', board, start, center + radius, 'WITHSCORES')
  for i = 1, #range do out[#out + 1] = range[i] end
  return out
end

-- read-top.lua: { 0, card, member1, key1, ... } for the first `count` entries.
local function read_top(board, count)
  local out = { 0, redis.call('ZCARD', board) }
  local range = redis.call('ZRANGE', board, 0, count - 1, 'WITHSCORES')
  for i = 1, #range do out[#out + 1] = range[i] end
  return out
end

-- read-window.lua: { 0, ahead, card, start, member1, key1, ... } around position (score, player).
local function read_window(board, score, player, radius)
  local lo = redis.call('ZCOUNT', board, '-inf', '(' .. score)
  local hi = redis.call('ZCOUNT', board, '-inf', score)
  -- invariant: members at ranks < lo are ahead; members at ranks >= hi are behind
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call('ZRANGE', board, mid, mid)[1]
    if bytes_less(member, player) then lo = mid + 1 else hi = mid end
  end
  return append_window({ 0, lo, redis.call('ZCARD', board) }, board, lo, radius)
end

-- read-standing.lua: { 0, key, ahead, card, start, member1, key1, ... }, or { 0, false }.
local function read_standing(board, player, radius)
  local key = redis.call('ZSCORE', board, player)
  if not key then return { 0, false } end
  local ahead = redis.call('ZRANK', board, player)
  return append_window({ 0, key, ahead, redis.call('ZCARD', board) }, board, ahead, radius)
end

-- read-entry.lua: { 0, key } (key false when the player has no entry).
local function read_entry(board, player)
  return { 0, redis.call('ZSCORE', board, player) }
end
