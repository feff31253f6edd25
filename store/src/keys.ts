/**
 * The key layout of a shard's Redis. Every key starts with the configured prefix, so
 * tests (and several clusters) can share one Redis with disjoint namespaces.
 *
 *   <prefix>board:<board>   sorted set: member = player id, score = sort key
 *   <prefix>board:<board>!meta  sorted set: "<player>\n<metadata>" per player with metadata (score 0)
 *   <prefix>board:~deleted  sorted set: "<board>#<generation>\n<partition>" per board deletion marker,
 *                           "<board>#<generation>@<period>\n<partition>" per period close marker
 *                           applied (apply-events.lua)
 *   <prefix>board:~hidden   sorted set: "<player>\n<board>" per hide ("<player>\n": every board), score 0
 *   <prefix>board:…!hid     a board key's hidden entries, out of the readers' sight (apply-moderation.lua)
 *   <prefix>board:~audit    sorted set: the moderation actions' audit lines (JSON), by time
 *   <prefix>count:records:<slot>:<bucket>  hash: per player of that slot and bucket, the records of
 *                           the log keyed by it applied (apply-records.lua; model/src/record-counts.ts)
 *   <prefix>rank-change:<id>  list: a rank report's positions (apply-events.lua), kept 60 s
 *   <prefix>board:…@T!join  a tournament's members, on the shard of its join partition: player ->
 *                           the join's offset (apply-tournaments.lua)
 *   <prefix>board:…@T!att   a tournament's members' attempts used, on the players' shards
 *   <prefix>outcome:<id>  string: what the apply decided of a tournament write or a league placement
 *                           with report id <id> (apply-tournaments.lua, apply-leagues.lua), kept 60 s
 *   <prefix>offsets         hash: partition -> last applied offset of the score log
 *   <prefix>heartbeat       string: the shard's stamp while it serves, or why it does not; expires
 *                           unless the shard node refreshes it (heartbeat.lua)
 *   <prefix>current         string: "<as of> <bound>" (ms, this Redis's clock) while the node serves:
 *                           reads are refused once the clock passes as of + bound (read-header.lua)
 *   <prefix>built-from      string: the stamp and topic id the data was built from (identity.ts)
 *   <prefix>dedup:<p>       sorted set: event ids applied from partition p within the dedup window
 *   <prefix>rebuild-lease   string: the running rebuild of the shard (JSON), expires unless renewed
 *                           (database 0 only; see writer/rebuild-lease.ts)
 *   <prefix>snapshot:reading  string: the id of the snapshot being read, while it is (expires)
 *   <prefix>snapshot:journal  set: the board and dedup members the apply script changed while
 *                           that snapshot was read (writer/snapshot.ts)
 *   <prefix>snapshot:journal-set-aside  the journal's earlier part, being resolved
 *   <prefix>changes         the change stream (a Redis stream): one entry per board entry added,
 *                           moved or removed, while <prefix>changes:on exists (routers with
 *                           watchers keep it: router/src/watch/); trimmed to ~100,000 entries
 *   <prefix>changes:on      the change flag, with a time to live
 *   <prefix>changes:gen     the change stream's generation: a random value set once per database
 *                           (SET NX by the routers' feeds), so positions of a stream swapped away
 *                           are never taken for positions of the one that replaced it
 *   <prefix>move            hash: a move of the shard's slots in place (writer/move.ts): phase
 *                           ('moving', 'drain'), the partitions it gains (arr) and loses (dep),
 *                           the built-from values before (from) and after (to)
 *   <prefix>board:…!arr, !dep  a move's companions of a board key: its members of the slots the
 *                           shard gains / loses, which readers leave out (read-header.lua)
 *   <prefix>audit:<view>:…  an audit view: the same layout again, rebuilt as of a point in time
 *   <prefix>snapshot-load:<id>:…  boards, dedup sets and counts of a snapshot being loaded, until they
 *                           replace the live ones in one step (writer/snapshot.ts)
 */
import type { Redis } from "ioredis";

export interface KeyLayout {
  board(board: string): string;
  /** The moderation actions' audit lines (apply-moderation.lua). */
  readonly audit: string;
  readonly offsets: string;
  readonly deletedBoards: string;
  /** The hash holding the counts of records of the players of `slot` in `bucket` (apply-records.lua; model/src/record-counts.ts). */
  recordCounts(slot: number, bucket: number): string;
  rankChange(id: string): string;
  outcome(id: string): string;
  readonly heartbeat: string;
  readonly current: string;
  readonly builtFrom: string;
  dedup(partition: number): string;
  readonly rebuildLease: string;
  readonly snapshotReading: string;
  readonly snapshotJournal: string;
  readonly snapshotJournalSetAside: string;
  readonly changes: string;
  readonly changesOn: string;
  readonly changesGen: string;
  readonly move: string;
}

export function keyLayout(prefix: string): KeyLayout {
  return Object.freeze({
    board: (board: string) => `${prefix}board:${board}`,
    audit: `${prefix}board:~audit`,
    offsets: `${prefix}offsets`,
    deletedBoards: `${prefix}board:~deleted`,
    recordCounts: (slot: number, bucket: number) => `${prefix}count:records:${slot}:${bucket}`,
    rankChange: (id: string) => `${prefix}rank-change:${id}`,
    outcome: (id: string) => `${prefix}outcome:${id}`,
    heartbeat: `${prefix}heartbeat`,
    current: `${prefix}current`,
    builtFrom: `${prefix}built-from`,
    dedup: (partition: number) => `${prefix}dedup:${partition}`,
    rebuildLease: `${prefix}rebuild-lease`,
    snapshotReading: `${prefix}snapshot:reading`,
    snapshotJournal: `${prefix}snapshot:journal`,
    snapshotJournalSetAside: `${prefix}snapshot:journal-set-aside`,
    changes: `${prefix}changes`,
    changesOn: `${prefix}changes:on`,
    changesGen: `${prefix}changes:gen`,
    move: `${prefix}move`,
  });
}

/** The last applied offset of each of `partitions` in the offsets hash `offsetsKey` (-1 where none). */
export async function appliedOffsetsOf(redis: Redis, offsetsKey: string, partitions: readonly number[]): Promise<bigint[]> {
  const raw = await redis.hmget(offsetsKey, ...partitions.map(String));
  return raw.map((o) => (o === null ? -1n : BigInt(o)));
}

/** The key prefix of audit view `view` of the boards under `prefix`. */
export const auditPrefix = (prefix: string, view: string) => `${prefix}audit:${view}:`;

/** The key prefix under which the shard node loads snapshot `id` before installing it. */
export const snapshotLoadPrefix = (prefix: string, id: string) => `${prefix}snapshot-load:${id}:`;

/** A `<prefix>current` value ("<as of> <bound>", ms, the Redis's clock) read back; undefined: none (the node does not serve). */
export function parseCurrent(value: string | null): { asOfMs: number; boundMs: number } | undefined {
  if (value === null) return undefined;
  const [asOfMs, boundMs] = value.split(" ").map(Number);
  return { asOfMs: asOfMs!, boundMs: boundMs! };
}
