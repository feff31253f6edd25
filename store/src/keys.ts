/**
 * The key layout of a shard's Redis. Every key starts with the configured prefix, so
 * tests (and several clusters) can share one Redis with disjoint namespaces.
 *
 *   <prefix>board:<board>   sorted set: member = player id, score = sort key
 *   <prefix>offsets         hash: partition -> last applied offset of the score log
 *   <prefix>heartbeat       string: the shard's stamp while it serves, or why it does not; expires
 *                           unless the shard node refreshes it (heartbeat.lua)
 *   <prefix>built-from      string: the stamp and topic id the data was built from (identity.ts)
 *   <prefix>dedup:<p>       sorted set: event ids applied from partition p within the dedup window
 *   <prefix>rebuild-lease   string: the running rebuild of the shard (JSON), expires unless renewed
 *                           (database 0 only; see writer/rebuild-lease.ts)
 *   <prefix>snapshot:reading  string: the id of the snapshot being read, while it is (expires)
 *   <prefix>snapshot:journal  set: the board and dedup members the apply script changed while
 *                           that snapshot was read (writer/snapshot.ts)
 *   <prefix>snapshot:journal-set-aside  the journal's earlier part, being resolved
 *   <prefix>audit:<view>:…  an audit view: the same layout again, rebuilt as of a point in time
 *   <prefix>snapshot-load:<id>:…  boards and dedup sets of a snapshot being loaded, until they
 *                           replace the live ones in one step (writer/snapshot.ts)
 */
import type { Redis } from "ioredis";

export interface KeyLayout {
  board(board: string): string;
  readonly offsets: string;
  readonly heartbeat: string;
  readonly builtFrom: string;
  dedup(partition: number): string;
  readonly rebuildLease: string;
  readonly snapshotReading: string;
  readonly snapshotJournal: string;
  readonly snapshotJournalSetAside: string;
}

export function keyLayout(prefix: string): KeyLayout {
  return Object.freeze({
    board: (board: string) => `${prefix}board:${board}`,
    offsets: `${prefix}offsets`,
    heartbeat: `${prefix}heartbeat`,
    builtFrom: `${prefix}built-from`,
    dedup: (partition: number) => `${prefix}dedup:${partition}`,
    rebuildLease: `${prefix}rebuild-lease`,
    snapshotReading: `${prefix}snapshot:reading`,
    snapshotJournal: `${prefix}snapshot:journal`,
    snapshotJournalSetAside: `${prefix}snapshot:journal-set-aside`,
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
