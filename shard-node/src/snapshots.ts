/**
 * The shard node's snapshots (what a snapshot is, where it lives and why it is consistent:
 * store/src/writer/snapshot.ts): when the node takes one, and refilling its Redis from one.
 *
 *   take    checked every second, while the shard serves (its Redis is then complete up to its
 *           offsets): once its partitions hold at least snapshotThreshold() records past the
 *           latest snapshot (LADDER_SNAPSHOT_RECORDS, or the members of the latest snapshot when
 *           more: a snapshot costs one read per member; applied offsets summed, raised by up to
 *           half by the shard's id: shards written at the same rate would otherwise all take
 *           theirs at the same moment, and a soak saw three at once starve the 2-core
 *           machine's Redis servers), `minIntervalMs` has passed since it
 *           (LADDER_SNAPSHOT_MIN_INTERVAL_MS), and the shard is within LADDER_MAX_LAG records of
 *           the log's end (not while it catches up on a backlog: snapshotDue). One at a
 *           time, into the chunk slot the newest manifest does not use. A snapshot that is
 *           skipped is tried again `minIntervalMs` later (at least 10 s); one that failed
 *           (Kafka unreachable) after 10 s, 20 s, 40 s… up to that.
 *   refill  at start, before the applier runs, when Redis is empty or further behind the
 *           newest snapshot than it has players; and, in the background, when the heartbeat
 *           found that Redis lost data (LOST) or the applier had to rewind (the apply script
 *           found Redis behind the records fetched: how a loss shows while records flow), if
 *           the newest snapshot is that far ahead: the applier is paused, the snapshot loaded and
 *           installed, each partition's fetch moved to the snapshot's offsets, the applier
 *           resumed; the log after the snapshot is then applied as usual. Reads are refused
 *           throughout (at start the heartbeat says the node is loading a snapshot; after a
 *           loss, that it is catching up). Without a usable snapshot the applier replays the
 *           log from where Redis stands, as without snapshots.
 */
import type { LogClient } from "@ladder/log/log-client";
import type { RecordProducer } from "@ladder/log/record-producer";
import type { Redis } from "ioredis";
import { fnv1a32 } from "@ladder/model/fnv1a";
import type { Logger } from "@ladder/platform/logger";
import { ensureSnapshotTopic, snapshotTopicOf } from "@ladder/log/snapshot-topic";
import {
  findSnapshots,
  manifestOffsets,
  notWorthLoading,
  refillFromSnapshot,
  takeSnapshot,
  type ChunkSlot,
  type ShardWriter,
  type SnapshotCandidates,
  type SnapshotManifest,
} from "@ladder/store/writer";
import type { Applier } from "./applier.js";
import type { ShardMetrics } from "./metrics.js";

export interface SnapshotsOptions {
  logClient: LogClient;
  writer: ShardWriter;
  /** The shard's live database. */
  redis: Redis;
  shardId: string;
  slots: readonly number[];
  keyPrefix: string;
  builtFrom: string;
  scoreTopic: string;
  /** The snapshot topic's replication, as the score topic's (undefined: min(3, brokers)). */
  replication?: number;
  minInsyncReplicas?: number;
  everyRecords: number;
  minIntervalMs: number;
  /** Snapshots wait while the shard is more than this many records behind the log's end (LADDER_MAX_LAG). */
  maxLag: number;
  heartbeatTtlMs: number;
  log: Logger;
  metrics?: ShardMetrics;
}

/** What taking snapshots asks of the running shard: its applier, whether it serves, how far behind the log it is (readiness.ts). */
export interface SnapshotContext {
  applier: Applier;
  serving(): boolean;
  lag(): number;
}

export interface NodeSnapshots {
  /** Before the applier starts: loads the newest snapshot if Redis is empty or far behind it; the offsets installed, if any. */
  refillAtStart(): Promise<Map<number, bigint> | undefined>;
  /** Starts taking snapshots for the running applier. */
  run(o: SnapshotContext): void;
  /** Redis lost data, or the applier rewound: refill from the newest snapshot in the background, if it is far enough ahead. */
  refill(why: string): void;
  /** Stops taking and refilling (what runs is cancelled), disconnects. */
  stop(): Promise<void>;
}

const RETRY_MIN_MS = 10_000;

/**
 * Whether a snapshot is due: the shard serves (its Redis is complete up to its offsets), is within
 * `maxLag` records of the log's end, and has applied `threshold` records since the latest one.
 * Not while it catches up on a backlog: a read of millions of members beside an applier at full
 * speed journals nearly every member it reads (each one re-read and held in the node's memory
 * until the end: gigabytes for a shard of millions), slows that applier, and is out of date before
 * it is published.
 */
export function snapshotDue(s: { serving: boolean; lag: number; maxLag: number; sinceLatest: number; threshold: number }): boolean {
  return s.serving && s.lag <= s.maxLag && s.sinceLatest >= s.threshold;
}

/**
 * The records past the latest snapshot at which shard `shardId` takes the next one: `everyRecords`,
 * or the members the latest snapshot holds when it holds more, raised by 0–50%, a fraction fixed by
 * the shard's id (FNV-1a), so shards written alike spread their snapshots over time instead of taking
 * them together.
 *
 * A snapshot costs a read and a write of every member; the records after it, a replay each when the
 * shard is rebuilt. Waiting for as many records as members keeps the snapshots' cost at most about one
 * member per record applied (a fixed count alone made a shard of 25M players read all 25M every 1M
 * records), while a rebuild still loads at most one snapshot and replays about as many records as the
 * shard has members: bounded by the players, not the history.
 */
export function snapshotThreshold(everyRecords: number, shardId: string, latestMembers = 0): number {
  return Math.round(Math.max(everyRecords, latestMembers) * (1 + (fnv1a32(shardId) % 1000) / 2000));
}

/** Creates the snapshot topic if needed and reads the newest snapshots; undefined when the topic cannot be used. */
export async function openSnapshots(o: SnapshotsOptions): Promise<NodeSnapshots | undefined> {
  const { log } = o;
  const topic = snapshotTopicOf(o.scoreTopic);
  let partitions: number;
  try {
    const t = await ensureSnapshotTopic(o.logClient, {
      topic,
      ...(o.replication ? { replication: o.replication } : {}),
      ...(o.minInsyncReplicas ? { minInsyncReplicas: o.minInsyncReplicas } : {}),
    });
    if (t.created) log.info({ topic }, "created the snapshot topic");
    for (const problem of t.problems) log.warn({ topic }, `snapshot topic: ${problem}`);
    if (t.partitions < 2) return undefined;
    partitions = t.partitions;
  } catch (err) {
    log.warn({ err, topic }, "cannot use the snapshot topic: no snapshots (rebuilds and refills replay the whole log)");
    return undefined;
  }
  const source = { logClient: o.logClient, topic };
  let found: SnapshotCandidates = { candidates: [], ignored: [] };
  try {
    found = await findSnapshots({ ...source, shardId: o.shardId, builtFrom: o.builtFrom });
  } catch (err) {
    log.warn({ err }, "cannot read the snapshot topic now; snapshots are taken from scratch");
  }
  let latest: SnapshotManifest | undefined = found.candidates[0];
  // the next snapshot goes into the other slot than our newest one's (one of another configuration under this shard's id may be newer)
  let newestSlot: ChunkSlot | undefined = found.candidates[0]?.chunks.slot ?? found.newestSlot;
  const chunksOf = new Map<ChunkSlot, number>(found.candidates.map((m) => [m.chunks.slot, m.chunks.count]));
  const stopping = new AbortController();
  let producer: RecordProducer | undefined;
  let ctx: SnapshotContext | undefined;
  let taking: Promise<void> | undefined;
  let refilling: Promise<void> | undefined;
  let nextTryAt = 0;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const refillOptions = () => ({
    ...source,
    shardId: o.shardId,
    builtFrom: o.builtFrom,
    slots: o.slots,
    redis: o.redis,
    keyPrefix: o.keyPrefix,
    log,
    signal: stopping.signal,
  });
  const installed = (m: SnapshotManifest, ms: number, when: string) => {
    latest = m;
    o.metrics?.setSnapshotPlayers(m.players);
    log.info(
      { snapshot: m.snapshotId, records: m.records, players: m.players, bytes: m.bytes, ms: Math.round(ms) },
      `${when}: loaded snapshot ${m.snapshotId}; applying the log after it`,
    );
  };

  const take = async () => {
    const slot: ChunkSlot = newestSlot === "a" ? "b" : "a";
    producer ??= await o.logClient.producer(); // one request at a time, acks=all; a retried request may write a chunk twice, which readers skip
    const res = await takeSnapshot({
      redis: o.redis,
      keyPrefix: o.keyPrefix,
      shardId: o.shardId,
      builtFrom: o.builtFrom,
      slots: o.slots,
      producer,
      topic,
      partitions,
      slot,
      staleChunks: chunksOf.get(slot) ?? 0,
      ...(latest ? { notBefore: manifestOffsets(latest) } : {}),
      signal: stopping.signal,
    });
    if ("skipped" in res) {
      o.metrics?.snapshot("skipped");
      log.info({ why: res.skipped }, "snapshot skipped");
      nextTryAt = Date.now() + Math.max(o.minIntervalMs, RETRY_MIN_MS);
      return;
    }
    const m = res.manifest;
    o.metrics?.snapshot("taken", { ...res, players: m.players });
    latest = m;
    newestSlot = slot;
    chunksOf.set(slot, m.chunks.count);
    nextTryAt = Date.now() + o.minIntervalMs;
    failures = 0;
    log.info(
      {
        snapshot: m.snapshotId,
        records: m.records,
        players: m.players,
        keys: m.keys,
        bytes: m.bytes,
        chunks: m.chunks.count,
        readMs: Math.round(res.readMs),
        longestCallMs: Math.round(res.longestCallMs),
        journaled: res.journaled,
        rotations: res.rotations,
        attempts: res.attempts,
        publishMs: Math.round(res.publishMs),
      },
      "snapshot taken",
    );
  };

  const tick = () => {
    if (!ctx || taking || refilling || stopping.signal.aborted || Date.now() < nextTryAt) return;
    const covered = o.slots.reduce((sum, p) => sum + Number((ctx!.applier.known.get(p) ?? -1n) + 1n), 0);
    const due = snapshotDue({
      serving: ctx.serving(),
      lag: ctx.lag(),
      maxLag: o.maxLag,
      sinceLatest: covered - (latest?.records ?? 0),
      threshold: snapshotThreshold(o.everyRecords, o.shardId, latest?.players ?? 0),
    });
    if (!due) return;
    taking = take()
      .catch((err: unknown) => {
        if (stopping.signal.aborted) return;
        o.metrics?.snapshot("failed");
        const waitMs = Math.min(Math.max(o.minIntervalMs, RETRY_MIN_MS), RETRY_MIN_MS * 2 ** failures++);
        log.warn({ err, retryInMs: waitMs }, "snapshot failed; trying again later");
        nextTryAt = Date.now() + waitMs;
      })
      .finally(() => (taking = undefined));
  };

  return {
    async refillAtStart() {
      const ttlMs = o.heartbeatTtlMs;
      const announce = (reason: string) => o.writer.heartbeat({ ttlMs, mode: "withdraw", reason, partitions: [] }).catch(() => undefined);
      if (found.candidates.length === 0) return undefined;
      let beat: NodeJS.Timeout | undefined;
      const onLoading = (m: SnapshotManifest) => {
        const reason = `loading snapshot ${m.snapshotId} (${m.players} players) before applying the log after it`;
        void announce(reason);
        clearInterval(beat);
        beat = setInterval(() => void announce(reason), Math.max(50, Math.floor(ttlMs / 3)));
      };
      try {
        const res = await refillFromSnapshot({ ...refillOptions(), found, onLoading });
        if ("skipped" in res) {
          log.info({ why: res.skipped }, "at start: no snapshot loaded");
          return undefined;
        }
        installed(res.installed, res.ms, "at start");
        return res.offsets;
      } catch (err) {
        if (stopping.signal.aborted) throw err;
        log.warn({ err }, "at start: loading a snapshot failed; replaying the log");
        return undefined;
      } finally {
        clearInterval(beat);
      }
    },

    run(c) {
      ctx = c;
      timer = setInterval(tick, 1000);
    },

    refill(why) {
      if (!ctx || refilling || stopping.signal.aborted || !latest) return;
      const { applier } = ctx;
      const newest = latest;
      // paused at once, before anything is awaited: rewound to what Redis holds, the applier would
      // otherwise replay the log meanwhile, and past the snapshot's offsets (a small shard's, within
      // one fetch) the snapshot would no longer be worth loading
      applier.pause();
      refilling = (async () => {
        try {
          // cheap first: is the newest snapshot known far enough ahead of what Redis holds? (after a swap, usually not)
          if (notWorthLoading(newest, o.slots, await o.writer.appliedOffsetsOf(o.slots))) return;
          await taking; // a snapshot being written finishes first (it skips a Redis that lost data)
          const fresh = await findSnapshots({ ...source, shardId: o.shardId, builtFrom: o.builtFrom, signal: stopping.signal });
          const res = await refillFromSnapshot({ ...refillOptions(), found: fresh });
          if ("skipped" in res) return void log.info({ why: res.skipped }, `after ${why}: no snapshot loaded; replaying the log`);
          for (const [p, offset] of res.offsets) if (offset > (applier.known.get(p) ?? -1n)) applier.rewind(p, offset);
          installed(res.installed, res.ms, `after ${why}`);
        } catch (err) {
          if (!stopping.signal.aborted) log.warn({ err }, `after ${why}: loading a snapshot failed; replaying the log`);
        } finally {
          applier.resume();
        }
      })().finally(() => (refilling = undefined));
    },

    async stop() {
      clearInterval(timer);
      stopping.abort(new Error("the shard node is stopping"));
      await Promise.allSettled([taking, refilling]);
      await producer?.disconnect().catch(() => {});
    },
  };
}
