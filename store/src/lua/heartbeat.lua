--[[
  The shard node's heartbeat: whether, and why not, the shard's data may be served.

  Every read script checks the heartbeat key first (read-header.lua) and answers only when
  it holds exactly the reader's stamp (store/src/identity.ts). The shard node runs this
  script every third of the heartbeat TTL; the key expires if the node stops, so a dead
  node's shard is refused within one TTL. The key's value is:
    <stamp>              serving
    !<reason>\n<stamp>   alive but not serving, and why (readers report the reason)

  For each of its partitions the node passes the offset it knows it has applied and a
  target offset: in mode catch-up, the log's end as it was when catching up began (after a
  start, a rewind, data loss, or a stall), so the shard serves only once it holds every
  record that existed at that moment, never a partial board; in mode serve, the log's end
  now (for the lag it reports). In mode withdraw the node has decided to stop serving (its
  applier stalled, or fell too far behind for too long: readiness.ts) and passes why.

  While serving, "<prefix>current" (beside the heartbeat key, same time to live) holds
  "<as of> <bound>": the read scripts refuse the shard once this Redis's clock passes
  <as of> + <bound> (read-header.lua), whatever the heartbeat says. The node computes <as of>
  from this script's `now` of an earlier call, never later than the truth (readiness.ts).

    - The built-from key must equal the node's (identity.ts). An empty Redis (no offsets at
      all) takes the node's value; any other mismatch is DRIFT: nothing is changed.
    - A partition whose stored offset is below what the node knows it applied has lost data
      (Redis restarted empty, was flushed, restored an older file, a rebuild was swapped in
      a little behind): LOST, the key says so, and the node rewinds and catches up.

  Input:
    KEYS[1]  heartbeat key
    KEYS[2]  offsets hash
    KEYS[3]  built-from key
    ARGV[1]  stamp
    ARGV[2]  the node's built-from value
    ARGV[3]  TTL in ms
    ARGV[4]  mode: serve | catch-up | withdraw
    ARGV[5]  reason (catch-up, withdraw)
    ARGV[6]  as of when (ms on this Redis's clock) the shard held every record of the log, as
             far as the node knows ("": no bound)
    ARGV[7]  as of when (ms on this Redis's clock) the targets below were the log's end ("":
             unknown): when every partition here holds its target, the shard is current as of
             then, whatever the node knows of what it applied
    ARGV[8]  the bound: the shard is served until the as-of + this (ms)
    ARGV[9]  n, then n triples: partition, known applied offset (-1 none), target offset
             (the offset the next record will get at the target moment)
  Output:
    { status, lag, now, lostPartition1, storedOffset1, ... }   or { -5, 0, builtFrom } on DRIFT
    status  0 SERVING   -4 CATCHING_UP   -5 DRIFT   -6 LOST   -7 WITHDRAWN
    lag     records behind the targets, summed over the partitions
    now     this Redis's clock (TIME) in ms, for the node's next as-of
    (reached, the targets' as-of, is the as-of set: lag 0 says the targets were reached)
]]
local built = redis.call('GET', KEYS[3])
if built ~= ARGV[2] then
  if built == false and redis.call('EXISTS', KEYS[2]) == 0 then
    redis.call('SET', KEYS[3], ARGV[2])
  else
    return { -5, 0, built or '' }
  end
end

local stamp, ttl, mode, reason = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local as_of, targets_as_of, bound = ARGV[6], ARGV[7], ARGV[8]
local n = tonumber(ARGV[9])
local lag, lost = 0, {}
for i = 0, n - 1 do
  local partition = ARGV[10 + i * 3]
  local known = tonumber(ARGV[11 + i * 3])
  local target = tonumber(ARGV[12 + i * 3])
  local stored = redis.call('HGET', KEYS[2], partition)
  stored = stored and tonumber(stored) or -1
  if stored < known then
    lost[#lost + 1] = partition
    lost[#lost + 1] = string.format('%d', stored)
  end
  local behind = target - 1 - stored
  if behind > 0 then lag = lag + behind end
end

local status = 0
if #lost > 0 then
  status = -6
  reason = 'Redis lost data (restarted empty, flushed, or older data swapped in): replaying from the log'
elseif mode == 'withdraw' then
  status = -7
elseif mode == 'catch-up' and lag > 0 then
  status = -4
  reason = reason .. ': ' .. string.format('%d', lag) .. ' records to apply'
end
local current = string.sub(KEYS[1], 1, #KEYS[1] - #'heartbeat') .. 'current'
-- every partition holds its target: current as of the targets' moment, if that is newer
if lag == 0 and #lost == 0 and targets_as_of ~= '' and as_of ~= '' and tonumber(targets_as_of) > tonumber(as_of) then
  as_of = targets_as_of
end
if status == 0 then
  redis.call('SET', KEYS[1], stamp, 'PX', ttl)
  if as_of ~= '' then redis.call('SET', current, as_of .. ' ' .. bound, 'PX', ttl) else redis.call('DEL', current) end
else
  redis.call('SET', KEYS[1], '!' .. reason .. '\n' .. stamp, 'PX', ttl)
  redis.call('DEL', current)
end
local t = redis.call('TIME')
local out = { status, lag, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) }
for i = 1, #lost do out[#out + 1] = lost[i] end
return out
