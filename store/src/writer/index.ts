/**
 * @ladder/store/writer: the write side of a shard's Redis. Imported by the shard node (the
 * live applier and its heartbeat) and by the router's AdminService (rebuilds).
 *
 * Why rebuilds run in the router process, not in the shard node: a rebuild is a job that
 * needs only the log and the shard's Redis, and is asked for over the router's admin API;
 * the shard node has no API of its own and keeps applying the live board while the rebuild
 * fills a spare database, so the swap must not depend on the node being up (a broken shard
 * node is one reason to rebuild). The shard node notices a swapped-in database through its
 * heartbeat (heartbeat.lua compares what it applied with what Redis holds) and applies the
 * newest records again. The cost of this choice: two writers touch one Redis during a
 * rebuild, on disjoint databases until the atomic SWAPDB.
 *
 * In the router's own event loop, not a worker thread: a build's synchronous steps are bounded
 * instead (a replay's fetch of 1 MiB per partition, 4 MiB in all, rebuild.ts; seeding's pages and
 * yields, move-seed.ts). A build in a thread of its own was measured against this (the four moves of
 * test/reshard.int.test.ts beside a million players, runs alternated): on two cores shared with the
 * shard nodes and the Redis servers the reads depend on, a second busy thread held the router's event
 * loop back longer, not shorter (its longest stall per move up to 837 ms against 380-488 ms), at
 * nice 5 and at nice 19, and made the moves slower.
 *
 * Snapshots (snapshot.ts: the format, topic and rules) are taken by the shard node and loaded
 * by rebuilds and by a shard node whose Redis lost its data.
 */
export {
  inspectShard,
  ShardWriter,
  type ApplyResult,
  type HeartbeatRequest,
  type HeartbeatResult,
  type PreparedEvent,
  type ShardState,
  type ShardWriterOptions,
} from "./shard-writer.js";
export { startApplyLoop, type ApplyLoop, type ApplyLoopOptions } from "./apply-loop.js";
export type {
  ApplyLog,
  BatchControl,
  ConsumeOptions,
  LogRecord,
  PartitionConsumer,
  RebuildLog,
  SnapshotLog,
  SnapshotWriter,
} from "./log-port.js";
export {
  rebuildShard,
  leaseMode,
  REBUILD_STALL_MS,
  type MoveMode,
  type RebuildMode,
  type RebuildOptions,
  type RebuildProgress,
} from "./rebuild.js";
export { RebuildLease, runningRebuild, describeRebuild, LEASE_TTL_MS, LEASE_RENEW_MS, type RebuildHolder } from "./rebuild-lease.js";
export { seedFromSnapshots, type SeedOptions, type SeedResult, type SeedSource } from "./move-seed.js";
export { noopEvent, prepareEvent, type Prepared } from "./prepare-event.js";
export {
  findSnapshots,
  loadSnapshot,
  notWorthLoading,
  readSnapshot,
  refillFromSnapshot,
  takeSnapshot,
  SnapshotUnusable,
  type LoadedSnapshot,
  type RefillOptions,
  type RefillResult,
  type SnapshotCandidates,
  type SnapshotSource,
  type TakenSnapshot,
  type TakeSnapshotOptions,
} from "./snapshot.js";
export {
  chunkKey,
  encodeChunk,
  encodeManifest,
  manifestKey,
  manifestOffsets,
  type ChunkSlot,
  type SnapshotManifest,
} from "./snapshot-format.js";
export { unlinkPrefix } from "./key-scan.js";
export { APPLY_SCRIPT_SHA, HeartbeatStatus } from "../scripts.js";
export {
  beginMove,
  cancelMove,
  copyLeaving,
  drainMove,
  flipMove,
  isBoardKey,
  moveOf,
  movePending,
  startMoveDrainer,
  MOVE_PAGE,
  type MovePhase,
  type MoveRecord,
  type MoveSpec,
} from "./move.js";
