--[[
  The apply script's input, decoded once (the layout: apply-events.lua's Input). Every event
  comes as one MessagePack map (store/src/writer/pack-event.ts), decoded by Redis's cmsgpack
  into a table of named fields; its board key (named by its index into KEYS, every key being
  there once) replaces the index as `ev.key`, its encoding and windows (indices into the call's
  shared tables, ARGV[4]) replace theirs as `ev.enc` and `ev.windows` (false: none). A field at
  its default is not sent: the event reads it from EVENT_DEFAULTS (its metatable), so decoding
  pays only for what an event carries.

  The call applies one or more partitions, each a GROUP of consecutive events with its partition
  and dedup set; PARTITION, DEDUP_KEY and GROUP_EVENTS are the group being applied, set by
  enter_partition(group) (the other includes keep their own per-partition state: apply-moves.lua,
  apply-changes.lua, apply-dedup.lua).

  Input:  KEYS, ARGV as apply-events.lua describes them
  Output: the fixed keys by name, GROUPS ({ partition, dedup (a KEYS index), list (its events) }),
          PARTITION, DEDUP_KEY, GROUP_EVENTS, enter_partition(group), DEDUP_WINDOW_MS, BUILT_FROM,
          HISTOGRAMS (the call's bucket-bound lists; an event's `hist` is an index into it, 0 for
          none), EVENTS (every group's), BOARD_PREFIX ("<prefix>board:") and KEY_PREFIX ("<prefix>")
]]
local OFFSETS_KEY, BUILT_FROM_KEY = KEYS[1], KEYS[3]
local SNAPSHOT_FLAG_KEY, JOURNAL_KEY, DELETED_KEY = KEYS[4], KEYS[5], KEYS[6]
local CHANGES_KEY, CHANGES_FLAG_KEY, MOVE_KEY = KEYS[7], KEYS[8], KEYS[9]
local FIRST_BOARD_KEY = 10
local FIRST_EVENT_ARG = 5

local GROUPS = cmsgpack.unpack(ARGV[1])
local DEDUP_WINDOW_MS = tonumber(ARGV[2])
local BUILT_FROM = ARGV[3]
local SHARED = cmsgpack.unpack(ARGV[4])
local HISTOGRAMS, ENCODINGS, WINDOWS = SHARED.hist, SHARED.enc, SHARED.windows

-- what an event's map leaves out (pack-event.ts packEvent)
local EVENT_DEFAULTS = { __index = {
  part = false, value = 0, time_idx = 0, ttl = 0, event_id = '', expire_at = 0, metadata = '',
  report = '', hist = 0, audit = '', limit = 0, tour = false, floor = '', retain = 0, at = 0, prev = '',
  team = '', left = false, best = 0, cols = '', ctime = '', bucket = 0,
} }

local EVENTS = {}
local at = FIRST_EVENT_ARG
for _, group in ipairs(GROUPS) do
  group.list = {}
  for i = at, at + group.events - 1 do
    local ev = setmetatable(cmsgpack.unpack(ARGV[i]), EVENT_DEFAULTS)
    ev.key = KEYS[ev.key]
    ev.enc = ENCODINGS[ev.enc]
    ev.windows = WINDOWS[ev.windows or 0] or false
    EVENTS[#EVENTS + 1] = ev
    group.list[#group.list + 1] = ev
  end
  at = at + group.events
end

-- the group being applied
local PARTITION, DEDUP_KEY, GROUP_EVENTS = nil, nil, nil
local function enter_partition(group)
  PARTITION = string.format('%d', group.partition)
  DEDUP_KEY = KEYS[group.dedup]
  GROUP_EVENTS = group.list
end

local KEY_PREFIX = string.sub(OFFSETS_KEY, 1, #OFFSETS_KEY - #'offsets')
local BOARD_PREFIX = KEY_PREFIX .. 'board:'
