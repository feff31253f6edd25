--[[
  Everything this shard holds of one player (AdminService.ExportPlayerData): its entries of every
  board key, hidden ones ("<key>!hid": apply-moderation.lua) included, with their metadata, and
  its count of records (apply-records.lua). The shard's own "~" keys and the other companions
  are left out. A SCAN of the shard's board keys: O(keys of the shard).

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  the hash holding the player's count of records, "<prefix>count:records:<slot>:<bucket>"
             (apply-records.lua)
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  player id
    ARGV[3]  the boards' prefix "<prefix>board:"
  Output:
    { status, records, stored1, key1, hidden1, metadata1, stored2, ... }   stored: the board key
    without the prefix; key: the sort key, or on a board with columns the entry's member (model/src/
    columns.ts); hidden: 1 or 0; metadata: '' when none
  Cost: O(keys of the shard).
]]
local status = check_shard(KEYS[1], ARGV[1])
if status ~= READ_OK then return { status } end
local player, prefix = ARGV[2], ARGV[3]
local out = { READ_OK, redis.call('HGET', KEYS[2], player) or '0' }
local pattern = string.gsub(prefix, '[%*%?%[%]\\]', '\\%0') .. '*'
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
  cursor = page[1]
  for _, k in ipairs(page[2]) do
    local name = string.sub(k, #prefix + 1)
    local bang = string.find(name, '!', 1, true)
    local hidden = bang and string.sub(name, bang) == '!hid'
    if string.sub(name, 1, 1) ~= '~' and (not bang or hidden) then
      local member, s = COLS.member_of(k, player)
      if s then
        if member ~= player then s = member end -- a board with columns: the entry's member (reader.ts parseKey)
        local base = hidden and string.sub(name, 1, bang - 1) or name
        local md = meta_member(prefix .. base .. '!meta', player)
        out[#out + 1] = base
        out[#out + 1] = s
        out[#out + 1] = hidden and 1 or 0
        out[#out + 1] = md and string.sub(md, #player + 2) or ''
      end
    end
  end
until cursor == '0'
return out
