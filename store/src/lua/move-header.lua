-- Shared by move-flip.lua and move-cancel.lua (prepended to each by scripts.ts).

-- Forgets partitions a shard no longer applies (those listed in `list`, ",p1,p2,"): their offsets in
-- `offsets`, their dedup sets ("<dedup_prefix><p>") and their board deletion markers in `deleted`.
local function forget_partitions(list, offsets, deleted, dedup_prefix)
  for p in string.gmatch(list, '%d+') do
    redis.call('HDEL', offsets, p)
    redis.call('UNLINK', dedup_prefix .. p)
    for _, m in ipairs(redis.call('ZRANGE', deleted, 0, -1)) do
      if string.sub(m, -(#p + 1)) == '\n' .. p then redis.call('ZREM', deleted, m) end
    end
  end
end

-- Unlinks every key matching `pattern`; returns how many.
local function unlink_matching(pattern)
  local n = 0
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = page[1]
    if #page[2] > 0 then
      redis.call('UNLINK', unpack(page[2]))
      n = n + #page[2]
    end
  until cursor == '0'
  return n
end
