/**
 * @ladder/store: the Redis side of a shard, and only that: it imports no Kafka and not
 * @ladder/log. Where the log and Redis meet (the apply loop, snapshots, rebuilds), store
 * names what it needs of the log in its own types (writer/log-port.ts) and the service passes
 * its @ladder/log LogClient in. This entry point is the read side,
 * what the router imports; the write side is `@ladder/store/writer`, so who writes a shard's
 * Redis shows in the imports.
 *
 *   keys.ts             the key layout of a shard's Redis (boards, offsets, heartbeat, dedup, views)
 *   identity.ts         what a shard was built from (topic, slots, boards): the stamp every read and write checks
 *   scripts.ts, lua/    the Lua scripts, read once per process; status codes → errors in one place
 *   reader.ts           ShardReader: top, standing, window, entry, applied offsets (read-only scripts),
 *                       the partitions that closed a period
 *   writer/             ShardWriter (apply, heartbeat), the one apply loop's Redis side, log replay and rebuilds
 *
 * The sort key stored as each member's score is model/src/score-encoding.ts's; this part only
 * stores and compares it (read-window.lua's tie rule is the same order).
 */
export { auditPrefix, keyLayout, parseCurrent, type KeyLayout } from "./keys.js";
export {
  behindSentinelTls,
  FAILOVER_RETRY_MS,
  loginOptions,
  nodeLogin,
  openRedis,
  readyWithin,
  sentinelLogin,
  sentinelTlsOptions,
} from "./connect.js";
export { builtFrom, explainMismatch, shardStamp, stampFields, type ShardIdentity } from "./identity.js";
export {
  ShardReader,
  type AfterResult,
  type IndexProbe,
  type InstantReads,
  type PlayerData,
  type RanksResult,
  type ShardReaderOptions,
  type StandingResult,
  type TopResult,
  type WindowResult,
  type WindowTies,
} from "./reader.js";
export { ReadStatus, servesReads, StampMismatch } from "./scripts.js";
