--[[
  The moderation actions' audit lines this shard keeps (apply-moderation.lua), newest first,
  those of one player and/or one board.

  Input:
    KEYS[1]  the audit key "<prefix>board:~audit"
    KEYS[2]  heartbeat key
    ARGV[1]  the reader's stamp of the shard (see read-header.lua)
    ARGV[2]  player id ('' any)
    ARGV[3]  board ('' any)
    ARGV[4]  how many lines at most
  Output:
    { status, line, ... }   the lines (JSON: model/src/moderation.ts), newest first
  Cost: O(lines decoded): every line from the newest until `limit` match.
]]
local status = check_shard(KEYS[2], ARGV[1])
if status ~= READ_OK then return { status } end
local player, board, limit = ARGV[2], ARGV[3], tonumber(ARGV[4])
local out = { READ_OK }
local total = redis.call('ZCARD', KEYS[1])
for start = 0, total - 1, 500 do
  for _, line in ipairs(redis.call('ZRANGE', KEYS[1], start, start + 499, 'REV')) do
    local a = cjson.decode(line)
    if (player == '' or a.playerId == player) and (board == '' or a.board == board) then
      out[#out + 1] = line
      if #out > limit then return out end
    end
  end
end
return out
