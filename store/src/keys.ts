/**
 * The key layout of a shard's Redis. Every key starts with the configured prefix, so
 * tests (and several clusters) can share one Redis with disjoint namespaces.
 *
 *   <prefix>board:<board>   sorted set: member = player id, score = sort key
 *   <prefix>offsets         hash: partition -> last applied offset of the score log
 *   <prefix>heartbeat       string: the shard id, expires unless the shard node refreshes it
 *   <prefix>dedup:<p>       sorted set: event ids applied from partition p within the dedup window
 *   <prefix>rebuild-lease   string: the running rebuild of the shard (JSON), expires unless renewed
 *                           (database 0 only; see writer/rebuild-lease.ts)
 *   <prefix>audit:<view>:…  an audit view: the same layout again, rebuilt as of a point in time
 */
export interface KeyLayout {
  board(board: string): string;
  readonly offsets: string;
  readonly heartbeat: string;
  dedup(partition: number): string;
  readonly rebuildLease: string;
}

export function keyLayout(prefix: string): KeyLayout {
  return Object.freeze({
    board: (board: string) => `${prefix}board:${board}`,
    offsets: `${prefix}offsets`,
    heartbeat: `${prefix}heartbeat`,
    dedup: (partition: number) => `${prefix}dedup:${partition}`,
    rebuildLease: `${prefix}rebuild-lease`,
  });
}

/** The key prefix of audit view `view` of the boards under `prefix`. */
export const auditPrefix = (prefix: string, view: string) => `${prefix}audit:${view}:`;
