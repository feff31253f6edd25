-- Shared by snapshot-resolve.lua and snapshot-finish.lua (prepended to each by scripts.ts).
-- A journal entry is "<key length>:<key><member>" (apply-events.lua): its key and member.
local function journal_entry(entry)
  local colon = string.find(entry, ':', 1, true)
  local length = tonumber(string.sub(entry, 1, colon - 1))
  return string.sub(entry, colon + 1, colon + length), string.sub(entry, colon + length + 1)
end
