--[[
  Snapshot journal (store/src/writer/snapshot.ts): while a snapshot is being read (the flag key
  exists), every member the apply script adds, changes or removes in a board, a companion, the
  dedup set or the counts of records (a hash's field) is also recorded in the journal set, as "<key length>:<key><member>", so the snapshot
  can re-read exactly those members at its end; its reads of the rest stay valid while records
  flow. One EXISTS per call otherwise.

  Input:  SNAPSHOT_FLAG_KEY, JOURNAL_KEY (apply-input.lua)
  Output: record(key, member): call after every change of `member` in `key`
]]
local journal_on = redis.call('EXISTS', SNAPSHOT_FLAG_KEY) == 1

local function record(key, member)
  if journal_on then redis.call('SADD', JOURNAL_KEY, string.format('%d:', #key) .. key .. member) end
end
