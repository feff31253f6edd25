--[[
  Starts a new journal for a snapshot being read (writer/snapshot.ts): the journal so far is
  renamed to KEYS[3], to be resolved at leisure (snapshot-resolve.lua), and an empty journal
  takes its place, so the apply script's changes from now on go to the new one. Repeated
  until the journal is small, this keeps the snapshot's final atomic step (snapshot-finish.lua)
  short however long the read took.

  Input:
    KEYS[1]  the snapshot flag
    KEYS[2]  the journal
    KEYS[3]  where the journal so far goes (replaced if it exists)
    ARGV[1]  this snapshot's id

  Output: { 0, members in the journal so far }, or { -11 } INTERRUPTED (see snapshot-finish.lua)
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('SISMEMBER', KEYS[2], '') == 0 then return { -11 } end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('RENAME', KEYS[2], KEYS[3])
redis.call('SADD', KEYS[2], '')
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return { 0, redis.call('SCARD', KEYS[3]) - 1 }
