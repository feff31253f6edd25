--[[
  Expiries set once per call: a period's key, a window's key and their companions get the same
  PEXPIREAT from every event of the call that writes them. `expire(key, at)` sends it the first
  time and skips the repeats while the key cannot have gone in between: only an expiry well in
  the future is remembered (one at or near the script's time deletes the key, which a later write
  recreates without one), and `zrem` (every ZREM of the apply script: a key emptied is deleted)
  and `forget_expiries` (after UNLINKs: a board deleted, a player erased) forget what they may
  have removed.

  Input:  none (functions only)
  Output: expire(key, at), zrem(key, member), forget_expiries()
]]
local expiry_set = {}
local clock = redis.call('TIME')
-- a second ahead of the script's start: no call runs that long, so such a key is still there
local REMEMBER_AFTER_MS = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) + 1000

-- PEXPIREAT key at (Unix ms), unless this call already set exactly that on the key
local function expire(key, at)
  if expiry_set[key] == at then return end
  redis.call('PEXPIREAT', key, int_arg(at))
  if at > REMEMBER_AFTER_MS then expiry_set[key] = at end
end

-- ZREM key member; returns its reply
local function zrem(key, member)
  expiry_set[key] = nil
  return redis.call('ZREM', key, member)
end

local function forget_expiries()
  expiry_set = {}
end
