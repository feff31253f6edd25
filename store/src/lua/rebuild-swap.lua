--[[
  Makes a rebuilt spare database live, only while the rebuild still holds the shard's lease:
  in one atomic step, copies the live heartbeat (time to live, and the shard's stamp, marked
  "not serving": see heartbeat.lua) and the lease into the spare database, then SWAPDB.
  Readers go from the old data to the rebuilt data at once, and are refused until the shard
  node has applied the newest records the rebuild had not replayed yet (it notices them on
  its next heartbeat and catches up to the log's end as of then): never a board behind the
  one it replaced;
  the lease stays in database 0 across the swap, so the rebuild still owns the shard while it
  deletes the old data (now in the spare database, with a copy of the lease that goes with it).

  The script runs on a connection to database 0; SELECT inside a script (Redis 7) changes only
  the script's database, and the script selects 0 again before returning for older servers.

  Input:
    KEYS[1]  the lease key
    KEYS[2]  the heartbeat key
    ARGV[1]  our lease value
    ARGV[2]  the spare database's index

  Output: 1 swapped; 0 the lease is not ours: nothing changed
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local lease_ttl = redis.call('PTTL', KEYS[1])
local heartbeat = redis.call('GET', KEYS[2])
local heartbeat_ttl = redis.call('PTTL', KEYS[2])
redis.call('SELECT', tonumber(ARGV[2]))
if heartbeat and heartbeat_ttl > 0 then
  if string.sub(heartbeat, 1, 1) ~= '!' then
    heartbeat = '!rebuilt from the log: the shard node is applying the newest records\n' .. heartbeat
  end
  redis.call('SET', KEYS[2], heartbeat, 'PX', heartbeat_ttl)
end
if lease_ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', lease_ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
redis.call('SWAPDB', 0, tonumber(ARGV[2]))
redis.call('SELECT', 0)
return 1
