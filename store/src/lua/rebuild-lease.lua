--[[
  Renews or releases a shard's rebuild lease, only while it is still ours (compare-and-set,
  compare-and-delete): a rebuild whose lease expired and was taken by another must not
  extend or delete the other's. Taking the lease needs no script: SET NX PX.

  Input:
    KEYS[1]  the lease key (<prefix>rebuild-lease, database 0)
    ARGV[1]  our lease value, exactly as set
    ARGV[2]  'renew' or 'release'
    ARGV[3]  renew: the new time to live, ms

  Output: 1 done; 0 the lease is not ours (expired, or held by another rebuild)
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == 'renew' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return 1
