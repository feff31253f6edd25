-- Shared by the snapshot scripts (prepended to each by scripts.ts).

-- A journal entry is "<key length>:<key><member>" (apply-events.lua): its key and member.
local function journal_entry(entry)
  local colon = string.find(entry, ':', 1, true)
  local length = tonumber(string.sub(entry, 1, colon - 1))
  return string.sub(entry, colon + 1, colon + length), string.sub(entry, colon + length + 1)
end

-- The value of a journaled member now: its score in a sorted set (boards, dedup sets), its value in
-- a hash (the counts of records, "count:*"); nil when it is not there. A key's type is asked once per call.
local types = {}
local function value_of(key, member)
  local t = types[key]
  if t == nil then
    t = redis.call('TYPE', key).ok
    types[key] = t
  end
  if t == 'hash' then return redis.call('HGET', key, member) end
  return redis.call('ZSCORE', key, member)
end

-- Every board, dedup and count key under the prefix `pattern` (escaped for KEYS), each followed by
-- its absolute expiry in Unix ms (PEXPIRETIME: -1 for none): { name1, expireAt1, name2, ... }
local function keys_with_expiry(pattern)
  local out = {}
  for _, kind in ipairs({ 'board:*', 'dedup:*', 'count:*' }) do
    for _, key in ipairs(redis.call('KEYS', pattern .. kind)) do
      local tail = string.sub(key, -4)
      if tail ~= '!arr' and tail ~= '!dep' then -- a move's companions (writer/move.ts) are not the log's state
        out[#out + 1] = key
        out[#out + 1] = redis.call('PEXPIRETIME', key)
      end
    end
  end
  return out
end
