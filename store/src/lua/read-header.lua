--[[
  Shared prologue of the read scripts (prepended to each when it is loaded).

  A shard answers reads only while its shard node is alive: the node refreshes a
  heartbeat key (value = its shard id, PX = heartbeat TTL) in its Redis. Without it
  the data may be arbitrarily stale, so the read fails with a status the router turns
  into UNAVAILABLE, never a silently wrong rank. The id also guards against a router
  whose shard list points at the wrong Redis.

  Status codes (first element of every read reply):
     0  OK
    -1  SHARD_DOWN    no heartbeat: the shard node is not running
    -2  WRONG_SHARD   the heartbeat names another shard
]]
local function check_shard(heartbeat_key, expected_shard)
  local owner = redis.call('GET', heartbeat_key)
  if not owner then return -1 end
  if owner ~= expected_shard then return -2 end
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
