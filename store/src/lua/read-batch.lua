--[[
  Several reads of one shard in one script: the router's reads of a shard that arrive together
  (concurrent requests, store/src/reader.ts) sent as one command instead of one each. Every read
  is the function its own script calls (read-header.lua), so its reply is exactly that script's;
  all of them are read at one instant, after one check of the shard's heartbeat.

  Input:
    KEYS[1]      heartbeat key
    KEYS[2..]    the board key of each read, in order
    ARGV[1]      the reader's stamp of the shard (see read-header.lua)
    ARGV[2..]    each read in order: its kind, then its arguments
                   't' count                   (read-top.lua)
                   'w' key, player, radius     (read-window.lua)
                   's' player, radius          (read-standing.lua)
                   'e' player                  (read-entry.lua)
                   'r' n, n players, m, m (key, player) positions   (read_ranks in read-header.lua)
                   'd' units, bound, cap       (read_distinct)
                   'g' units, anchor, cap      (read_ties; anchor '': the first entry the read just
                                               before it in this batch listed, none when it listed none)
                   'D' width, bound, cap       (read_col_distinct: on a board with columns, below bound)
                   'G' width, anchor, cap      (read_col_ties: on a board with columns; anchor a member,
                                               '' as for 'g')
                   'a' key, player, count, backward (read_after)
                   'h'                         (read_histogram)
                   'P' as 'r'                  (read_ranks_at: read_ranks and the change stream's newest id)
                   'H' j                       (read_histogram_at: the counts around stored bucket j)
                   'I'                         (read_index_probe: size, move flag, change stream position)
  Output:
    { status, reply1, reply2, ... }: status as every read's (read-header.lua); when it is not 0,
    only the refusal's figures follow (see check_shard) and every read is refused for the same reason
  Cost: the sum of the reads' costs.
]]
local status, age, bound = check_shard(KEYS[1], ARGV[1])
if status ~= READ_OK then return { status, age, bound } end
local out = { READ_OK }
local a = 2
for k = 2, #KEYS do
  local board = KEYS[k]
  local kind = ARGV[a]
  if kind ~= 'g' and kind ~= 'G' then WINDOW_FIRST, WINDOW_FIRST_MEMBER = false, false end
  if kind == 't' then
    out[k] = read_top(board, tonumber(ARGV[a + 1]))
    a = a + 2
  elseif kind == 'w' then
    out[k] = read_window(board, ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3]))
    a = a + 4
  elseif kind == 's' then
    out[k] = read_standing(board, ARGV[a + 1], tonumber(ARGV[a + 2]))
    a = a + 3
  elseif kind == 'e' then
    out[k] = read_entry(board, ARGV[a + 1])
    a = a + 2
  elseif kind == 'r' or kind == 'P' then
    local n_own = tonumber(ARGV[a + 1])
    local players = {}
    for i = 1, n_own do players[i] = ARGV[a + 1 + i] end
    local at = a + 2 + n_own
    local n_pos = tonumber(ARGV[at])
    local positions = {}
    for i = 1, 2 * n_pos do positions[i] = ARGV[at + i] end
    if kind == 'P' then out[k] = read_ranks_at(board, players, positions) else out[k] = read_ranks(board, players, positions) end
    a = at + 1 + 2 * n_pos
  elseif kind == 'd' then
    out[k] = read_distinct(board, tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]))
    a = a + 4
  elseif kind == 'g' then
    local anchor = ARGV[a + 2]
    if anchor == '' then anchor = WINDOW_FIRST end
    out[k] = read_ties(board, tonumber(ARGV[a + 1]), anchor, tonumber(ARGV[a + 3]))
    a = a + 4
  elseif kind == 'D' then
    out[k] = read_col_distinct(board, tonumber(ARGV[a + 1]), ARGV[a + 2], false, tonumber(ARGV[a + 3]))
    a = a + 4
  elseif kind == 'G' then
    local anchor = ARGV[a + 2]
    if anchor == '' then anchor = WINDOW_FIRST_MEMBER end
    out[k] = read_col_ties(board, tonumber(ARGV[a + 1]), anchor, tonumber(ARGV[a + 3]))
    a = a + 4
  elseif kind == 'h' then
    out[k] = read_histogram(board)
    a = a + 1
  elseif kind == 'H' then
    out[k] = read_histogram_at(board, tonumber(ARGV[a + 1]))
    a = a + 2
  elseif kind == 'I' then
    out[k] = read_index_probe(board)
    a = a + 1
  elseif kind == 'a' then
    out[k] = read_after(board, ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]))
    a = a + 5
  else
    return redis.error_reply('read-batch: unknown read kind ' .. tostring(kind))
  end
end
return out
