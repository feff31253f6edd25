/**
 * Rebuild of one shard from the score log.
 *
 * The log is the truth and a shard's Redis only a view of it, so a shard can always be made
 * again by replaying its partitions from offset 0 through the same apply script the shard
 * node uses (same dedup decisions: they depend only on the records). Two targets, and a third
 * use of the same replay:
 *
 *   swap   the replay fills a spare database of the shard's Redis (LADDER_REBUILD_DB, 1)
 *          while the live database keeps serving. Once the replay is within `readyLag`
 *          records of the log's end, the live heartbeat is copied over and SWAPDB makes
 *          the rebuilt data live in one atomic step; readers never see a half-built
 *          board. The shard node notices the (small) difference between what it had
 *          applied and what the rebuilt data holds and applies the newest records again
 *          (see heartbeat.lua). The old data, now in the spare database, is deleted.
 *   audit  the replay fills a separate key namespace (`<prefix>audit:<view>:`) next to the
 *          live board, as of a point in time (records up to given offsets, and/or ingested
 *          before a given time); when complete the view gets a heartbeat of VIEW_LIFE_MS and is
 *          readable through the router with `view`. The view's keys live as long: a period's or
 *          window's key expires at its own expiry or the view's, whichever is later, so periods
 *          the live board no longer keeps (keep_periods) are readable again in a view.
 *   move   a reshard's move of a shard's slots in place (move.ts): the replay of only the
 *          slots the shard gains, into its live database, where readers leave them out until
 *          the cut-over (move-flip.lua) instead of a swap.
 *
 * Snapshots (snapshot.ts): in swap mode, when `snapshots` is given, the rebuild first loads the
 * shard's newest usable snapshot into the spare database (its boards, dedup sets, offsets) and
 * replays only the records after it; a snapshot that is missing, of another configuration or
 * topic, damaged or unreadable is not used and the replay starts from offset 0 (a snapshot only
 * saves time: it never fails a rebuild). Audit views always replay from offset 0: a snapshot
 * holds the present, not the past.
 *
 * Replay runs the shard node's own apply loop (apply-loop.ts) with a consumer group of its
 * own (deleted afterwards), assigned the shard's slots, and fails if the apply script reports
 * a gap (only another writer on the target could cause one). Progress (records replayed,
 * rate, lag, ETA) is reported about once a second.
 *
 * One rebuild per shard at a time. Two swap rebuilds of a shard would share the spare
 * database and both SWAPDB (the old board back, the rebuilt one deleted, both reporting
 * DONE); an audit rebuild and a swap rebuild of a shard conflict too, because the swap moves
 * the audit namespaces out of database 0 and back key by key while the audit rebuild writes
 * there; two audit rebuilds of one view write the same namespace. So a rebuild of either
 * kind first takes the shard's one rebuild lease (rebuild-lease.ts: a key in database 0 of the
 * shard's Redis, SET NX PX, renewed while it runs, released at the end, expiring 30 s after
 * a crashed holder's last renewal), and a second rebuild of the shard is refused at once with
 * ABORTED naming the first (id, kind, holder, since when). One lease per shard rather than one
 * per view: audit views of different names could run side by side, but not beside a swap,
 * and rebuilds are rare operator actions; one rule is simpler to state and to check. The
 * lease covers everything the rebuild writes: the swap itself runs only while the lease is
 * still ours, in the same script (rebuild-swap.lua), which also keeps the lease in database
 * 0 across the SWAPDB so the rebuild still owns the shard while it deletes the old data.
 *
 * A rebuild stops, without swapping, when `signal` aborts (the rpc cancelled or past its
 * deadline), when its lease may be lost, on a gap (ABORTED), when the replay's applied
 * offsets have not moved for `stallMs` (default REBUILD_STALL_MS) while it is behind
 * (UNAVAILABLE), or when the consumer dies. Then it stops the apply loop (the chunk in
 * flight finishes, nothing is written after), deletes what it wrote (the spare database's
 * keys, or the view's namespace; the live board is never touched) if the lease is still
 * ours (else the target may be another rebuild's by now), and releases the lease. Once the
 * swap is done (or the view marked readable) there is nothing left to undo: a cancel after
 * that point lets the rebuild finish its clean-up.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { BoardSpecs } from "@ladder/model/board-spec";
import { Code, LadderError } from "@ladder/model/errors";
import type { Logger } from "@ladder/platform/logger";
import type { RedisLogin } from "@ladder/platform/redis-login";
import { openRedis } from "../connect.js";
import { auditPrefix, keyLayout } from "../keys.js";
import { startApplyLoop } from "./apply-loop.js";
import type { RebuildLog } from "./log-port.js";
import { forEachKey, unlinkPrefix } from "./key-scan.js";
import { manifestOffsets, type SnapshotManifest } from "./snapshot-format.js";
import { findSnapshots, loadSnapshot, type SnapshotCandidates } from "./snapshot.js";
import { noopEvent } from "./prepare-event.js";
import { RebuildLease } from "./rebuild-lease.js";
import { beginMove, cancelMove, copyLeaving, flipMove, moveOf } from "./move.js";
import { ShardWriter } from "./shard-writer.js";
import { seedFromSnapshots, type SeedResult, type SeedSource } from "./move-seed.js";
import type { PreparedEvent } from "./prepared-event.js";

/** How long an audit view lives (its heartbeat and its keys): ~25 days, renewed by a later rebuild of it. */
export const VIEW_LIFE_MS = 2 ** 31 - 1;

/** `event` with its period's and windows' keys expiring at `at` at the earliest (never-expiring keys stay so). */
export function outliving(event: PreparedEvent, at: number): PreparedEvent {
  const later = (ms: number) => (ms > 0 ? Math.max(ms, at) : ms);
  if (event.expireAtMs <= 0 && !event.windows) return event;
  return {
    ...event,
    expireAtMs: later(event.expireAtMs),
    ...(event.windows
      ? { windows: { ...event.windows, windows: event.windows.windows.map((w) => ({ ...w, expireAtMs: w.expireAtMs.map(later) })) } }
      : {}),
  };
}

export type RebuildMode =
  | { kind: "swap"; stagingDb: number; readyLag: number }
  | MoveMode
  | { kind: "audit"; view: string; asOfOffsets: ReadonlyMap<number, bigint>; asOfTimestampMs: number };

/**
 * A move of the shard's slots in place (move.ts): `slots` are the slots it gains (replayed into
 * the live database), `lost` those it gives away; `to` and `toStamp` its built-from value and
 * stamp in the new placement. No spare database: the cut-over is move-flip.lua, not SWAPDB.
 */
export interface MoveMode {
  kind: "move";
  readyLag: number;
  lost: readonly number[];
  numSlots: number;
  to: string;
  toStamp: string;
}

export interface RebuildOptions {
  /** The score log and the snapshot topic (the service's @ladder/log LogClient). */
  logClient: RebuildLog;
  topic: string;
  shardId: string;
  /** The shard's stamp (identity.ts): what readers expect in its heartbeat. */
  stamp: string;
  /** What the rebuilt data is built from (identity.ts): the stamp and the topic's current id. */
  builtFrom: string;
  slots: readonly number[];
  redisUrl: string;
  /** The login to the shard's Redis (its admin user: the rebuild swaps databases; platform/src/redis-acl.ts). */
  login?: RedisLogin;
  keyPrefix: string;
  boards: BoardSpecs;
  applyBatch: number;
  dedupWindowMs: number;
  mode: RebuildMode;
  onProgress(p: RebuildProgress): void;
  log: Logger;
  /** The shard's rebuild lease, already taken (RebuildLease.acquire); taken here when absent. Released at the end either way. */
  lease?: RebuildLease;
  /** Aborting it stops the rebuild and undoes it, unless it has swapped already; its reason is what the rebuild throws. */
  signal?: AbortSignal;
  /** Fail when the applied offsets have not moved for this long while behind (default REBUILD_STALL_MS). */
  stallMs?: number;
  /** Swap mode: start from the shard's newest usable snapshot in this topic (undefined: replay from offset 0). */
  snapshots?: { topic: string };
  /**
   * A reshard (swap mode for a new shard, or a move in place): the old owners of the slots the
   * shard gains; each one's share is seeded from its newest usable snapshot in `topic` where it can
   * be (move-seed.ts), the rest replayed from offset 0. Swap mode seeds only when the shard's own
   * snapshot was not loaded.
   */
  seeds?: { topic: string; numSlots: number; sources: readonly SeedSource[] };
  /**
   * Swap mode: called once the replay is ready to swap; the swap waits until it resolves, while the
   * replay keeps applying the newest records (a reshard swaps all its shards together). A rejection
   * stops the rebuild as an abort would.
   */
  beforeSwap?: (progress: RebuildProgress) => Promise<void>;
  /** Swap mode: called right after the spare database was swapped in, before the old data is deleted. */
  onSwapped?: () => void;
}

/**
 * How long a replay may make no progress while behind the log's end before the rebuild
 * fails. A constant, not a LADDER_* setting (yet): a replay applies thousands of records a
 * second, so a minute without one means Kafka or the shard's Redis is unreachable.
 */
export const REBUILD_STALL_MS = 60_000;
/** At most this long deleting what a failed rebuild wrote (the next rebuild deletes leftovers first). */
const DISCARD_MS = 30_000;

/** The lease's name for a rebuild mode: "swap", or "audit:<view>". */
export const leaseMode = (mode: RebuildMode) => (mode.kind === "audit" ? `audit:${mode.view}` : mode.kind);

export interface RebuildProgress {
  shardId: string;
  done: boolean;
  /** Records replayed from the log (after the snapshot, when one was loaded). */
  replayed: number;
  perSecond: number;
  lag: number;
  etaMs: number;
  /** The snapshot the rebuild started from: its id, the records of the log it stands for, its players, how long loading it took. */
  snapshot?: { id: string; records: number; players: number; loadMs: number };
  /** A reshard's gained slots seeded from their old owners' snapshots (move-seed.ts): which, the members loaded, how long it took. */
  seeded?: { snapshots: string[]; members: number; loadMs: number };
}

export async function rebuildShard(options: RebuildOptions): Promise<RebuildProgress> {
  let loaded: RebuildProgress["snapshot"];
  let seededBy: RebuildProgress["seeded"];
  const o: RebuildOptions = {
    ...options,
    onProgress: (p) => options.onProgress({ ...p, ...(loaded ? { snapshot: loaded } : {}), ...(seededBy ? { seeded: seededBy } : {}) }),
  };
  const audit = o.mode.kind === "audit";
  const targetPrefix = o.mode.kind === "audit" ? auditPrefix(o.keyPrefix, o.mode.view) : o.keyPrefix;
  const lease =
    o.lease ??
    (await RebuildLease.acquire({
      redisUrl: o.redisUrl,
      login: o.login,
      keyPrefix: o.keyPrefix,
      shardId: o.shardId,
      mode: leaseMode(o.mode),
      log: o.log,
    }));
  const stop = o.signal ? AbortSignal.any([o.signal, lease.lost]) : lease.lost;
  if (o.mode.kind === "move") {
    try {
      return await moveInPlace(o, o.mode, lease, stop, (s) => (seededBy = s));
    } finally {
      await lease.release();
    }
  }
  const target = openRedis(o.redisUrl, { db: o.mode.kind === "swap" ? o.mode.stagingDb : 0, maxRetriesPerRequest: null }, o.login);
  let published = false; // swapped in, or the view marked readable: nothing to undo from then on
  try {
    stop.throwIfAborted();
    await unlinkPrefix(target, targetPrefix);
    const writer = new ShardWriter({
      shardId: o.shardId,
      stamp: o.stamp,
      builtFrom: o.builtFrom,
      redis: target,
      keyPrefix: targetPrefix,
      dedupWindowMs: o.dedupWindowMs,
    });
    await writer.recordBuiltFrom();
    const snapshot = o.mode.kind === "swap" && o.snapshots ? await loadSnapshotInto(o, o.snapshots.topic, target, writer, stop) : undefined;
    if (snapshot) {
      loaded = {
        id: snapshot.manifest.snapshotId,
        records: snapshot.manifest.records,
        players: snapshot.manifest.players,
        loadMs: Math.round(snapshot.ms),
      };
      o.onProgress({ shardId: o.shardId, done: false, replayed: 0, perSecond: 0, lag: 0, etaMs: 0 });
    }
    let startAfter: ReadonlyMap<number, bigint> | undefined = snapshot ? manifestOffsets(snapshot.manifest) : undefined;
    if (!snapshot && o.mode.kind === "swap" && o.seeds) {
      const seeded = await seed(o, o.seeds, target, writer, false, stop);
      if (seeded) {
        startAfter = seeded.startAfter;
        seededBy = {
          snapshots: seeded.from.map((f) => `${f.shardId}/${f.snapshotId}`),
          members: seeded.members,
          loadMs: Math.round(seeded.ms),
        };
      }
    }
    const stopAt = await stopOffsets(o);
    const progress = await replay(o, writer, stopAt, stop, startAfter);
    stop.throwIfAborted();
    await lease.renew(); // what follows has a whole lease TTL
    if (o.mode.kind === "swap") await swapIn(o, target, o.mode.stagingDb, lease, () => (published = true));
    else await writer.markServing(VIEW_LIFE_MS); // renewed by any later rebuild of the view
    published = true;
    const done = {
      ...progress,
      done: true,
      lag: 0,
      etaMs: 0,
      ...(loaded ? { snapshot: loaded } : {}),
      ...(seededBy ? { seeded: seededBy } : {}),
    };
    o.onProgress(done);
    o.log.info({ shardId: o.shardId, replayed: done.replayed, mode: o.mode.kind, audit, snapshot: loaded?.id }, "rebuild done");
    return done;
  } catch (err) {
    if (!published) await discard(o, lease, target, targetPrefix);
    throw err;
  } finally {
    await lease.release();
    target.disconnect();
  }
}

/** Deletes what a stopped rebuild wrote to its target, if the target is still its own. Never throws. */
async function discard(o: RebuildOptions, lease: RebuildLease, target: Redis, prefix: string): Promise<void> {
  if (!lease.held) {
    o.log.warn(
      { shardId: o.shardId },
      "rebuild stopped without its lease: its target is left as it is (the next rebuild deletes it first)",
    );
    return;
  }
  const what =
    o.mode.kind === "swap"
      ? `the spare database ${o.mode.stagingDb}`
      : o.mode.kind === "audit"
        ? `audit view "${o.mode.view}"`
        : "the live database";
  try {
    await bounded(unlinkPrefix(target, prefix), { ms: DISCARD_MS, onTimeout: () => new Error(`not done within ${DISCARD_MS} ms`) });
    o.log.info({ shardId: o.shardId }, `rebuild stopped: deleted what it wrote to ${what}`);
  } catch (err) {
    o.log.warn(
      { err, shardId: o.shardId },
      `rebuild stopped, but what it wrote to ${what} could not be deleted (the next rebuild deletes it first)`,
    );
  }
}

/** Per partition, the last offset to replay: audit cut-offs, else unbounded (-1n = none). */
async function stopOffsets(o: RebuildOptions): Promise<Map<number, bigint> | undefined> {
  if (o.mode.kind !== "audit") return undefined;
  const ends = await logEnds(o);
  return new Map(
    o.slots.map((p) => [p, o.mode.kind === "audit" && o.mode.asOfOffsets.has(p) ? o.mode.asOfOffsets.get(p)! : ends.get(p)! - 1n]),
  );
}

async function logEnds(o: RebuildOptions): Promise<Map<number, bigint>> {
  return o.logClient.endOffsets(o.topic);
}

/**
 * Loads the shard's newest usable snapshot into the (empty) target and sets its offsets; on a
 * snapshot that cannot be used, empties the target again and tries the next older one. Returns
 * undefined when none could be loaded: the replay then starts from offset 0.
 */
async function loadSnapshotInto(
  o: RebuildOptions,
  topic: string,
  target: Redis,
  writer: ShardWriter,
  stop: AbortSignal,
): Promise<{ manifest: SnapshotManifest; ms: number } | undefined> {
  const source = { logClient: o.logClient, topic };
  let found: SnapshotCandidates;
  try {
    found = await findSnapshots({ ...source, shardId: o.shardId, builtFrom: o.builtFrom, signal: stop });
  } catch (err) {
    if (stop.aborted) throw err;
    o.log.warn({ err, shardId: o.shardId }, "cannot read the snapshot topic: replaying from offset 0");
    return undefined;
  }
  for (const why of found.ignored) o.log.warn({ shardId: o.shardId }, `snapshot ignored: ${why}`);
  for (const manifest of found.candidates) {
    try {
      const loaded = await loadSnapshot({ ...source, manifest, redis: target, targetPrefix: o.keyPrefix, signal: stop });
      const offsets = Object.entries(manifest.offsets)
        .filter(([, offset]) => BigInt(offset) >= 0n)
        .flat();
      if (offsets.length) await target.hset(writer.keys.offsets, ...offsets);
      o.log.info(
        {
          shardId: o.shardId,
          snapshot: manifest.snapshotId,
          records: manifest.records,
          players: manifest.players,
          ms: Math.round(loaded.ms),
        },
        "rebuild starts from a snapshot",
      );
      return { manifest, ms: loaded.ms };
    } catch (err) {
      if (stop.aborted) throw err;
      // unusable (SnapshotUnusable), or unreadable now (Kafka): a snapshot only saves time, never fails a rebuild
      o.log.warn(
        { shardId: o.shardId, snapshot: manifest.snapshotId, why: (err as Error).message },
        "snapshot not usable; trying an older one, or the log from offset 0",
      );
      await unlinkPrefix(target, o.keyPrefix);
      await writer.recordBuiltFrom();
    }
  }
  if (found.candidates.length === 0)
    o.log.info({ shardId: o.shardId }, "no snapshot of this shard built from this configuration: replaying from offset 0");
  return undefined;
}

async function replay(
  o: RebuildOptions,
  writer: ShardWriter,
  stopAt: Map<number, bigint> | undefined,
  stop: AbortSignal,
  startAfter?: ReadonlyMap<number, bigint>,
): Promise<RebuildProgress> {
  const groupId = `${o.topic}.rebuild.${o.shardId}.${randomUUID()}`;
  const cutoff = o.mode.kind === "audit" && o.mode.asOfTimestampMs > 0 ? o.mode.asOfTimestampMs : Infinity;
  const keepUntil = o.mode.kind === "audit" ? Date.now() + VIEW_LIFE_MS : 0; // a view keeps past periods
  let replayed = 0;
  let failure: Error | undefined;
  const fail = (err: Error) => void (failure ??= err);
  const loop = await startApplyLoop({
    logClient: o.logClient,
    topic: o.topic,
    groupId,
    slots: o.slots,
    writer,
    boards: o.boards,
    chunk: o.applyBatch,
    // rebuilds and moves run in the router's process, beside its reads: kafkajs decodes a fetch in one
    // synchronous step, and 8 MiB per partition of a move's five partitions held the router for 1.1-1.9 s
    consumer: { maxWaitMs: 100, maxBytesPerPartition: 1024 * 1024, maxBytes: 4 * 1024 * 1024 },
    stopAt: (partition) => stopAt?.get(partition),
    ...(startAfter ? { startAfter } : {}),
    filter: (event) =>
      event.ingestedAtMs >= cutoff ? { ...noopEvent(event.offset), part: event.part } : keepUntil ? outliving(event, keepUntil) : event,
    onApplied: (_partition, _result, records) => void (replayed += records),
    onGap: (partition, result, fetchedFrom) =>
      fail(
        new LadderError(
          Code.ABORTED,
          `rebuild of ${o.shardId} failed on a gap: partition ${partition} holds offset ${result.lastOffset} in the target, but the replay fetched from ${fetchedFrom}: something else wrote to the rebuild's target`,
        ),
      ),
    onDrift: (_partition, builtFrom) =>
      fail(
        new LadderError(
          Code.FAILED_PRECONDITION,
          `rebuild of ${o.shardId}: its target holds data built from "${builtFrom}", not from this rebuild's source`,
        ),
      ),
    onFatal: (err) =>
      fail(
        new LadderError(Code.UNAVAILABLE, `rebuild of ${o.shardId}: the replay's Kafka consumer failed: ${err.message}`, {
          retriable: true,
          cause: err,
        }),
      ),
  });
  try {
    const progress = await watch(
      o,
      writer,
      stopAt,
      () => replayed,
      () => failure,
      stop,
    );
    if (o.mode.kind !== "audit" && o.beforeSwap) await held(o.beforeSwap(progress), () => failure, stop);
    return progress;
  } finally {
    await loop.stop();
    // in the background: a swap or a move's cut-over follows at once, and reads wait for it
    void o.logClient
      .deleteGroup(groupId)
      .catch((err: unknown) => o.log.warn({ err, groupId }, "could not delete the rebuild's consumer group"));
  }
}

/**
 * Reports progress each second until the replay reaches its target; throws `stop`'s reason
 * when it aborts, a replay failure, or UNAVAILABLE when the applied offsets have not moved
 * for `stallMs` while behind (each poll of Kafka and Redis is bounded by the same time).
 */
async function watch(
  o: RebuildOptions,
  writer: ShardWriter,
  stopAt: Map<number, bigint> | undefined,
  replayed: () => number,
  failure: () => Error | undefined,
  stop: AbortSignal,
): Promise<RebuildProgress> {
  const stallMs = o.stallMs ?? REBUILD_STALL_MS;
  const stalled = (lag: number) =>
    new LadderError(
      Code.UNAVAILABLE,
      `rebuild of ${o.shardId}: the replay made no progress for ${Math.round(stallMs / 1000)} s with ${Number.isFinite(lag) ? lag : "an unknown number of"} records to go (Kafka or the shard's Redis unreachable?)`,
      { retriable: true },
    );
  let last = { at: Date.now(), replayed: 0 };
  let previousLag = Infinity;
  let moved = { at: Date.now(), applied: "" };
  for (;;) {
    await bounded(new Promise((r) => setTimeout(r, 1000)), { stop });
    const failed = failure();
    if (failed) throw failed;
    const poll = async () =>
      [stopAt ?? new Map([...(await logEnds(o))].map(([p, end]) => [p, end - 1n])), await writer.appliedOffsetsOf(o.slots)] as const;
    const [targets, applied] = await bounded(poll(), {
      stop,
      ms: Math.max(1, moved.at + stallMs - Date.now()),
      onTimeout: () => stalled(previousLag),
    });
    const lag = o.slots.reduce((sum, p, i) => sum + Math.max(0, Number((targets.get(p) ?? -1n) - applied[i]!)), 0);
    const now = Date.now();
    const appliedNow = applied.join(",");
    if (appliedNow !== moved.applied) moved = { at: now, applied: appliedNow };
    else if (lag > 0 && now - moved.at >= stallMs) throw stalled(lag);
    const perSecond = ((replayed() - last.replayed) * 1000) / Math.max(1, now - last.at);
    last = { at: now, replayed: replayed() };
    const progress: RebuildProgress = {
      shardId: o.shardId,
      done: false,
      replayed: replayed(),
      perSecond,
      lag,
      etaMs: perSecond > 0 ? Math.round((lag / perSecond) * 1000) : 0,
    };
    // swap: at the log's end, or within the ready lag once live writes keep the replay from closing in
    const reached = lag === 0 || (o.mode.kind !== "audit" && lag <= o.mode.readyLag && lag >= previousLag);
    previousLag = lag;
    if (reached) return progress;
    o.onProgress(progress);
  }
}

/** Seeds the gained slots from their old owners' snapshots (move-seed.ts); undefined when none could seed. */
async function seed(
  o: RebuildOptions,
  seeds: NonNullable<RebuildOptions["seeds"]>,
  target: Redis,
  writer: ShardWriter,
  mirror: boolean,
  stop: AbortSignal,
): Promise<SeedResult | undefined> {
  const result = await seedFromSnapshots({
    logClient: o.logClient,
    topic: seeds.topic,
    sources: seeds.sources,
    redis: target,
    keyPrefix: o.keyPrefix,
    offsetsKey: writer.keys.offsets,
    numSlots: seeds.numSlots,
    mirror,
    log: o.log.child({ shardId: o.shardId }),
    signal: stop,
  });
  return result.from.length ? result : undefined;
}

/** How long a move waits for a snapshot being read, or for a move left behind to be drained, before it begins. */
const MOVE_BEGIN_WAIT_MS = 300_000;

/**
 * A move in place (move.ts): begin, copy the departing players, replay the gained slots into the
 * live database, wait for `beforeSwap`, cut over. Given up before the cut-over (abort, failure),
 * it is cancelled: the shard node deletes the arrivals, and the shard stays as it was.
 */
async function moveInPlace(
  o: RebuildOptions,
  m: MoveMode,
  lease: RebuildLease,
  stop: AbortSignal,
  onSeeded: (s: NonNullable<RebuildProgress["seeded"]>) => void,
): Promise<RebuildProgress> {
  const live = openRedis(o.redisUrl, { db: 0, maxRetriesPerRequest: null }, o.login);
  const log = o.log.child({ shardId: o.shardId, move: true });
  let begun = false;
  try {
    stop.throwIfAborted();
    await settleEarlierMove(live, o, stop);
    await beginMove(
      live,
      o.keyPrefix,
      { gained: o.slots, lost: m.lost, from: o.builtFrom, to: m.to },
      { waitMs: MOVE_BEGIN_WAIT_MS, signal: stop },
    );
    begun = true;
    const t0 = performance.now();
    let said = Date.now();
    const copied = await copyLeaving(live, o.keyPrefix, m.lost, m.numSlots, {
      signal: stop,
      onProgress: (scanned, departing) => {
        if (Date.now() - said < 10_000) return;
        said = Date.now();
        log.info({ scanned, departing }, "move: setting the departing players aside");
      },
    });
    log.info(
      { gained: o.slots, lost: m.lost, scanned: copied.scanned, departing: copied.copied, ms: Math.round(performance.now() - t0) },
      "move: departing players copied aside",
    );
    const writer = new ShardWriter({
      shardId: o.shardId,
      stamp: o.stamp,
      builtFrom: o.builtFrom,
      redis: live,
      keyPrefix: o.keyPrefix,
      dedupWindowMs: o.dedupWindowMs,
    });
    let progress: RebuildProgress = { shardId: o.shardId, done: false, replayed: 0, perSecond: 0, lag: 0, etaMs: 0 };
    const seeded = o.seeds && o.slots.length ? await seed(o, o.seeds, live, writer, true, stop) : undefined;
    if (seeded)
      onSeeded({
        snapshots: seeded.from.map((f) => `${f.shardId}/${f.snapshotId}`),
        members: seeded.members,
        loadMs: Math.round(seeded.ms),
      });
    if (o.slots.length) progress = await replay(o, writer, undefined, stop, seeded?.startAfter);
    else if (o.beforeSwap) await held(o.beforeSwap(progress), () => undefined, stop);
    stop.throwIfAborted();
    await lease.renew();
    if (!lease.held) throw new LadderError(Code.ABORTED, `move of ${o.shardId}: its rebuild lease was lost before the cut-over`);
    await flipMove(live, o.keyPrefix, o.builtFrom, m.toStamp);
    begun = false;
    o.onSwapped?.();
    log.info({ replayed: progress.replayed }, "move: cut over (the shard node deletes the departed players)");
    const done = { ...progress, done: true, lag: 0, etaMs: 0 };
    o.onProgress(done);
    return done;
  } catch (err) {
    if (begun) {
      await cancelMove(live, o.keyPrefix).then(
        () => log.info("move given up: the shard node deletes the arrivals; the shard keeps its slots"),
        (e: unknown) => log.warn({ err: e }, "move given up, but it could not be cancelled (the next move of the shard cancels it)"),
      );
    }
    throw err;
  } finally {
    live.disconnect();
  }
}

/**
 * A move of the shard left by a reshard that died: one still 'moving' is cancelled (the lease is
 * ours, so nobody runs it); then, as for one draining, wait until the shard node has drained it.
 */
async function settleEarlierMove(live: Redis, o: RebuildOptions, stop: AbortSignal): Promise<void> {
  const until = Date.now() + MOVE_BEGIN_WAIT_MS;
  for (let said = false; ; said = true) {
    const earlier = await moveOf(live, o.keyPrefix);
    if (!earlier) return;
    if (earlier.phase === "moving") await cancelMove(live, o.keyPrefix);
    if (!said)
      o.log.warn(
        { shardId: o.shardId, phase: earlier.phase },
        "an earlier move of this shard is not finished: waiting for its shard node to drain it",
      );
    if (Date.now() >= until)
      throw new LadderError(
        Code.UNAVAILABLE,
        `move of ${o.shardId}: an earlier move of the shard (phase ${earlier.phase}) was not drained within ${MOVE_BEGIN_WAIT_MS / 1000} s; is its shard node running?`,
        { retriable: true },
      );
    await bounded(new Promise((r) => setTimeout(r, 250)), { stop });
  }
}

/**
 * Makes the spare database live while the lease is ours (rebuild-swap.lua: copies the live
 * heartbeat and the lease over, SWAPDB, atomically), then deletes the old data.
 */
async function swapIn(o: RebuildOptions, staging: Redis, stagingDb: number, lease: RebuildLease, swapped: () => void): Promise<void> {
  await lease.swap(keyLayout(o.keyPrefix).heartbeat, stagingDb);
  swapped();
  o.onSwapped?.();
  o.log.info({ shardId: o.shardId }, "rebuilt data swapped in");
  await moveViewsBack(staging, o.keyPrefix); // audit views belong with the live data
  await unlinkPrefix(staging, o.keyPrefix); // the old data, now in the spare database (with the lease's copy)
}

/** Moves the audit views' keys from the spare database back to database 0. */
async function moveViewsBack(staging: Redis, prefix: string): Promise<void> {
  await forEachKey(staging, auditPrefix(prefix, ""), async (keys) => {
    for (const key of keys) await staging.move(key, 0);
  });
}

/** Waits for `gate` while the replay keeps applying; throws a replay failure or `stop`'s reason first. */
async function held(gate: Promise<void>, failure: () => Error | undefined, stop: AbortSignal): Promise<void> {
  let open = false;
  const opened = gate.then(() => void (open = true));
  while (!open) {
    await bounded(Promise.race([opened, new Promise((r) => setTimeout(r, 250))]), { stop });
    const failed = failure();
    if (failed) throw failed;
  }
}

/**
 * Settles like `p`, unless `stop` aborts first (rejects with its reason) or `ms` pass first
 * (rejects with `onTimeout()`). `p` itself is not cancelled.
 */
function bounded<T>(p: Promise<T>, o: { stop?: AbortSignal; ms?: number; onTimeout?: () => Error }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (f: () => void) => {
      clearTimeout(timer);
      o.stop?.removeEventListener("abort", onAbort);
      f();
    };
    const onAbort = () => settle(() => reject(o.stop!.reason));
    if (o.stop?.aborted) return onAbort();
    o.stop?.addEventListener("abort", onAbort, { once: true });
    if (o.ms !== undefined)
      timer = setTimeout(() => settle(() => reject(o.onTimeout?.() ?? new Error(`timed out after ${o.ms} ms`))), o.ms);
    p.then(
      (v) => settle(() => resolve(v)),
      (e: unknown) => settle(() => reject(e)),
    );
  });
}
