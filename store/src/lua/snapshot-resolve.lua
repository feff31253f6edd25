--[[
  Reads the current score (a hash's value) of the members of a journal set aside by snapshot-rotate.lua, a page
  at a time (SSCAN: every member is returned at least once; the set no longer changes). Each
  member's score is read at some instant after it was journaled; a member that changes again
  later is in the new journal, resolved later again.

  Input:
    KEYS[1]  the journal set aside
    ARGV[1]  the SSCAN cursor ('0' to start)
    ARGV[2]  members per page

  Output: { next cursor ('0': done), { key, member, score, ... } }   score nil: no longer there
]]
local scan = redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local out = {}
for _, entry in ipairs(scan[2]) do
  if entry ~= '' then
    local key, member = journal_entry(entry)
    out[#out + 1] = key
    out[#out + 1] = member
    out[#out + 1] = value_of(key, member)
  end
end
return { scan[1], out }
