--[[
  Ends reading a snapshot (writer/snapshot.ts): in one atomic step, what the pages read cannot
  show — the offsets and built-from value as of now, the keys that exist now with their expiry,
  and the current score (a hash's value) of every member the apply script changed since the journal was last set
  aside (snapshot-rotate.lua, which keeps it short) — then stops the journal. The snapshot is the
  state at this instant: the pages gave every member that did not change since the begin, the
  journals set aside gave those that changed and then stayed, this step gives the rest.

  Input:
    KEYS[1]  the snapshot flag
    KEYS[2]  the journal
    KEYS[3]  the offsets hash
    KEYS[4]  the built-from key
    ARGV[1]  this snapshot's id
    ARGV[2]  the live key prefix, escaped for a KEYS pattern

  Output:
    { 0, builtFrom, { partition, offset, ... }, { name, expireAt, ... }, { key, member, score, ... } }
        score is nil for a member that is no longer in its key
    { -11 }  INTERRUPTED: the flag is not this snapshot's, or the journal was lost (expired, or
             the database was swapped by a rebuild): nothing the pages read can be trusted
]]
local ok = redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('SISMEMBER', KEYS[2], '') == 1
if not ok then
  if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('UNLINK', KEYS[1], KEYS[2]) end
  return { -11 }
end
local changed = {}
for _, entry in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if entry ~= '' then
    local key, member = journal_entry(entry)
    changed[#changed + 1] = key
    changed[#changed + 1] = member
    changed[#changed + 1] = value_of(key, member)
  end
end
local keys = keys_with_expiry(ARGV[2])
local built = redis.call('GET', KEYS[4])
local offsets = redis.call('HGETALL', KEYS[3])
redis.call('UNLINK', KEYS[1], KEYS[2])
return { 0, built, offsets, keys, changed }
