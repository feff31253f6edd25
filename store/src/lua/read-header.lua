--[[
  Shared prologue of the read scripts (prepended to each when it is loaded).

  A shard answers reads only while its shard node says the data may be served: the node
  keeps a heartbeat key (PX = heartbeat TTL) holding the shard's stamp (store/src/identity.ts:
  shard id, topic, slots, board specs) while it serves, and the reason while it does not
  (heartbeat.lua). A read passes its own stamp of the shard and is answered only when the
  two are equal: never a stale or partial board, and never one built from other slots or
  board specs than the reader's. The caller explains a refusal from the key's value.

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
