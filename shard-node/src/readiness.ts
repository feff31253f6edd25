/**
 * Readiness: the shard node's heartbeat, which gates every read of its shard.
 *
 * Every third of the heartbeat TTL the node reads the log's end offsets of its partitions
 * and runs the heartbeat script (heartbeat.lua) with what it knows it has applied. The
 * shard serves reads only while the script keeps the heartbeat key alive:
 *   - after start, and after any rewind, only once every partition is within `maxLag`
 *     records of the log's end (a rebuilt or refilled Redis is never served half-built);
 *   - never while Redis holds less than the node applied (Redis lost data): the node
 *     rewinds those partitions to Redis's offsets and catches up again.
 * A node that dies stops refreshing, and reads fail with UNAVAILABLE within one TTL.
 */
import type { Admin } from "kafkajs";
import type { Logger } from "@ladder/common/logger";
import { HeartbeatStatus } from "@ladder/store/writer";
import type { ShardWriter } from "@ladder/store/writer";
import type { Applier } from "./applier.js";

export interface ReadinessOptions {
  store: ShardWriter;
  admin: Admin;
  topic: string;
  slots: readonly number[];
  applier: Applier;
  ttlMs: number;
  maxLag: number;
  log: Logger;
}

export interface Readiness {
  /** Marks the shard behind: it must catch up before serving again. */
  fallBehind(): void;
  /** Stops the heartbeat and withdraws it, so reads fail fast rather than go stale. */
  stop(): Promise<void>;
}

export function startReadiness(opts: ReadinessOptions): Readiness {
  const { store, admin, topic, slots, applier, ttlMs, maxLag, log } = opts;
  const state = { ready: false };
  let running: Promise<void> = Promise.resolve();

  const tick = async () => {
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]));
    const partitions = slots.map((p) => ({ partition: p, known: applier.known.get(p) ?? -1n, logEnd: ends.get(p) ?? 0n }));
    const res = await store.conditionalHeartbeat({ ttlMs, mustCatchUp: !state.ready, maxLag, partitions });
    if (res.status === HeartbeatStatus.OK && !state.ready) log.info({ lag: res.lag }, "caught up with the log: serving reads");
    if (res.status === HeartbeatStatus.LAGGING) log.info({ lag: res.lag }, "catching up with the log; reads refused until then");
    if (res.lost.size > 0) {
      log.warn({ partitions: [...res.lost.keys()], lag: res.lag }, "Redis holds less than was applied (data lost): replaying from the log");
      for (const [partition, stored] of res.lost) applier.rewind(partition, stored);
    }
    state.ready = res.status === HeartbeatStatus.OK;
  };
  const timer = setInterval(() => {
    running = running.then(tick).catch((err: unknown) => log.warn({ err }, "heartbeat failed"));
  }, Math.max(50, Math.floor(ttlMs / 3)));
  running = running.then(tick).catch((err: unknown) => log.warn({ err }, "heartbeat failed"));

  return {
    fallBehind() {
      state.ready = false;
    },
    async stop() {
      clearInterval(timer);
      await running;
      await store.clearHeartbeat().catch((err: unknown) => log.warn({ err }, "could not clear heartbeat"));
    },
  };
}
