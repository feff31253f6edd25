--[[
  Starts reading a snapshot of a shard (writer/snapshot.ts) while records keep being applied.

  From this call on, the apply script records in the journal every board, dedup and count member it
  adds, changes or removes (apply-events.lua), for as long as the flag holds this snapshot's id.
  The snapshot then reads the keys listed here page by page (snapshot-page.lua) and, at its end,
  re-reads the journal's members and the offsets in one atomic step (snapshot-finish.lua).
  Listing the keys in the same call that starts the journal is what makes "a key not listed
  here" mean "every member of it was added after the journal started".

  The flag and the journal expire after ARGV[2] ms, so a node that dies while reading leaves
  nothing behind that makes every apply call write a journal. The journal starts with one empty
  member: the finish checks it is still there (the journal was not lost and made again).

  Not while the shard's slots move in place (writer/move.ts): its boards then hold members of
  other slots; move-begin.lua likewise refuses to start while a snapshot is read.

  Input:
    KEYS[1]  the snapshot flag (<prefix>snapshot:reading)
    KEYS[2]  the journal (<prefix>snapshot:journal)
    KEYS[3]  the move (<prefix>move)
    ARGV[1]  this snapshot's id
    ARGV[2]  time to live of the flag and the journal, ms
    ARGV[3]  the live key prefix, escaped for a KEYS pattern

  Output: { name1, expireAt1, name2, expireAt2, ... }  every board, dedup and count key, with its
          absolute expiry in Unix ms (PEXPIRETIME: -1 for none); { '!moving' } during a move
]]
if redis.call('EXISTS', KEYS[3]) == 1 then return { '!moving' } end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('UNLINK', KEYS[2])
redis.call('SADD', KEYS[2], '')
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return keys_with_expiry(ARGV[3])
