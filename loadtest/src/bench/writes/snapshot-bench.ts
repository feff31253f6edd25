/**
 * Benchmark "snapshot": a rebuild of one big shard from the whole log against one from its
 * snapshot plus the tail, and what taking the snapshot costs. Method: snapshot.md.
 */
import type { LogClient } from "@ladder/log/log-client";
import type { OutgoingRecord } from "@ladder/log/record-producer";
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { loadConfig } from "@ladder/platform/config";
import { ensureScoreTopic, TopicIds } from "@ladder/log/kafka";
import type { Logger } from "@ladder/platform/logger";
import { slotOf } from "@ladder/model/placement";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { builtFrom, keyLayout, shardStamp } from "@ladder/store";
import { ensureSnapshotTopic, snapshotTopicOf } from "@ladder/log/snapshot-topic";
import { rebuildShard, takeSnapshot, type RebuildProgress } from "@ladder/store/writer";
import { playerId } from "../../workload/player-ids.js";
import type { Benchmark } from "../context.js";
import { BENCH_BOARD, BENCH_KEY_PREFIX, BENCH_SLOTS, BENCH_SPECS } from "../infra/bench-board.js";
import { benchLogClient, benchRedis, startRedisFleet } from "../infra/infra-fixtures.js";
import { count, round2, seconds as secs } from "../output/format.js";
import type { SnapshotPlan } from "../plan.js";

const SHARD = "shard-0";
const SLOT_LIST = Array.from({ length: BENCH_SLOTS }, (_, i) => i);
const DEFAULTS = loadConfig({}); // the services' defaults: apply batch, dedup window

/** The log's records and players: record n is round ⌊n / players⌋ of player n mod players; `head` of them come before the snapshot. */
interface Log {
  client: LogClient;
  topic: string;
  p: SnapshotPlan;
  head: number;
  ids: string[];
  slotsOf: Int16Array;
}

export const snapshotBenchmark: Benchmark = {
  name: "snapshot",
  method: "writes/snapshot.md",
  title: "Rebuild of one shard with and without a snapshot",
  async run(ctx) {
    const p = ctx.plan.snapshot;
    const total = p.players * p.perPlayer;
    const broker = await ctx.kafka();
    const fleet = await startRedisFleet(ctx, "snapshot", 2);
    const client = await benchLogClient(ctx, broker, "ladder-bench-snapshot");
    const topicIds = new TopicIds(broker.brokers, "ladder-bench-snapshot-ids");
    const [urlA, urlB] = fleet.servers.map((r) => r.url) as [string, string];
    const redisA = benchRedis(urlA);
    const redisB = benchRedis(urlB);
    try {
      const topic = `bench.snapshot.${Date.now()}`;
      await ensureScoreTopic(client, { topic, numSlots: BENCH_SLOTS }, { create: true });
      const stamp = shardStamp({ shardId: SHARD, topic, numSlots: BENCH_SLOTS, slots: SLOT_LIST, boards: BENCH_SPECS });
      const from = builtFrom(stamp, (await topicIds.idOf(topic))!);
      const snapshotTopic = snapshotTopicOf(topic);
      const { partitions } = await ensureSnapshotTopic(client, { topic: snapshotTopic });
      const ids = Array.from({ length: p.players }, (_, i) => playerId(i));
      const log: Log = { client, topic, p, head: total - p.tail, ids, slotsOf: Int16Array.from(ids, (id) => slotOf(id, BENCH_SLOTS)) };
      const rebuild = (url: string, snapshots?: string) => rebuildInto(client, ctx.log, url, topic, stamp, from, snapshots);

      ctx.say(
        `producing ${count(log.head)} records (${count(p.players)} players × ${p.perPlayer - 1} rounds), then rebuilding Redis A from offset 0`,
      );
      const produceHead = await produce(log, 0, log.head);
      const beforeTail = await rebuild(urlA);
      const producer = await client.producer(); // as the shard node's: one request in flight
      const slowlog = await recordCommands(redisA);
      const taken = await takeSnapshot({
        redis: redisA,
        keyPrefix: BENCH_KEY_PREFIX,
        shardId: SHARD,
        builtFrom: from,
        slots: SLOT_LIST,
        producer,
        topic: snapshotTopic,
        partitions,
        slot: "a",
      }).finally(() => producer.disconnect());
      const redisSide = await slowlog.stop();
      if ("skipped" in taken) throw new Error(`snapshot skipped: ${taken.skipped}`);
      const m = taken.manifest;
      ctx.say(
        `  snapshot: ${count(m.players)} players, ${(m.bytes / 1e6).toFixed(1)} MB; producing the tail of ${count(p.tail)} records, then both rebuilds`,
      );
      const produceTail = await produce(log, log.head, total);
      const full = await rebuild(urlB);
      const fromSnapshot = await rebuild(urlA, snapshotTopic);
      const equal = JSON.stringify(await digest(redisA)) === JSON.stringify(await digest(redisB));
      if (!equal) throw new Error("the rebuild from the snapshot and the tail differs from the full replay");
      const speedup = round2(full.seconds / fromSnapshot.seconds);
      const snapshot = {
        players: m.players,
        keys: m.keys,
        bytes: m.bytes,
        chunks: m.chunks.count,
        readMs: Math.round(taken.readMs),
        longestCallMs: round2(taken.longestCallMs),
        longestInRedisMs: round2(redisSide.longestMs),
        redisCommands: redisSide.commands,
        finishMs: round2(taken.finishMs),
        publishMs: Math.round(taken.publishMs),
      };
      return {
        figures: {
          plan: p,
          records: total,
          produce: { head: produceHead, tail: produceTail },
          rebuildBeforeTail: beforeTail,
          snapshot,
          rebuildWithoutSnapshot: full,
          rebuildWithSnapshot: fromSnapshot,
          speedup,
          equal,
        },
        tables: [
          {
            title: `One shard of ${count(p.players)} players, ${count(total)} records in the log, the snapshot ${count(p.tail)} records before its end; both rebuilds leave the same keys, byte for byte`,
            columns: ["rebuild of the shard", "records replayed", "time", "records/s"],
            rows: [
              ["without a snapshot, from offset 0", count(full.replayed), secs(full.seconds), count(full.perSec)],
              [
                `from the snapshot: load (${secs((fromSnapshot.snapshot?.loadMs ?? 0) / 1000)}), then the tail`,
                count(fromSnapshot.replayed),
                secs(fromSnapshot.seconds),
                `${speedup}x faster`,
              ],
            ],
          },
          {
            title: "Taking the snapshot",
            columns: [
              "players",
              "read ms",
              "longest call ms (client)",
              "longest command ms (Redis)",
              "finish ms",
              "written to Kafka ms",
              "MB",
              "chunks",
            ],
            rows: [
              [
                count(m.players),
                count(snapshot.readMs),
                String(snapshot.longestCallMs),
                `${snapshot.longestInRedisMs} (of ${count(snapshot.redisCommands)})`,
                String(snapshot.finishMs),
                count(snapshot.publishMs),
                (m.bytes / 1e6).toFixed(1),
                String(snapshot.chunks),
              ],
            ],
          },
        ],
      };
    } finally {
      redisA.disconnect();
      redisB.disconnect();
      await client.close().catch(() => {});
      await topicIds.close().catch(() => {});
      await fleet.stop();
    }
  },
};

interface Produced {
  records: number;
  seconds: number;
  perSec: number;
}

/** Records first..end-1 of the log. */
async function produce({ client, topic, p, head, ids, slotsOf }: Log, first: number, end: number): Promise<Produced> {
  const { players, perPlayer, ids: idsAround } = p;
  const producer = await client.producer({ maxInFlightRequests: 2 });
  const start = performance.now();
  const ingestedAtMs = Date.now();
  const roundStepMs = 60_000;
  const firstRoundMs = Date.now() - perPlayer * roundStepMs; // in the past, one minute (one time unit) per round
  const inFlight = new Set<Promise<unknown>>();
  let messages: OutgoingRecord[] = [];
  const flush = async () => {
    const batch = messages;
    messages = [];
    const p: Promise<unknown> = producer.send(topic, batch).then(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 3) await Promise.race(inFlight);
  };
  const snapshotPoint = head;
  try {
    for (let n = first; n < end; n++) {
      const round = Math.floor(n / players);
      const index = n % players;
      const id = ids[index]!;
      const withId = n >= snapshotPoint - idsAround && n < snapshotPoint + idsAround;
      const value = encodeScoreEvent(
        {
          board: BENCH_BOARD,
          playerId: id,
          op: Operation.INCREMENT,
          value: BigInt(1 + ((index * 31 + round * 17) % 100)),
          timestampMs: BigInt(firstRoundMs + round * roundStepMs),
          eventId: withId ? `e-${n}` : "",
        },
        ingestedAtMs,
      );
      messages.push({ key: id, value, partition: slotsOf[index]! });
      if (messages.length >= 20_000) await flush();
    }
    if (messages.length) await flush();
    await Promise.all(inFlight);
  } finally {
    await producer.disconnect();
  }
  const seconds = (performance.now() - start) / 1000;
  return { records: end - first, seconds: round2(seconds), perSec: Math.round((end - first) / seconds) };
}

interface Rebuilt {
  seconds: number;
  replayed: number;
  perSec: number;
  snapshot?: RebuildProgress["snapshot"];
  players: number;
}

async function rebuildInto(
  client: LogClient,
  log: Logger,
  redisUrl: string,
  topic: string,
  stamp: string,
  from: string,
  snapshotTopic?: string,
): Promise<Rebuilt> {
  const start = performance.now();
  const done = await rebuildShard({
    logClient: client,
    topic,
    shardId: SHARD,
    stamp,
    builtFrom: from,
    slots: SLOT_LIST,
    redisUrl,
    keyPrefix: BENCH_KEY_PREFIX,
    boards: BENCH_SPECS,
    applyBatch: DEFAULTS.applyBatch,
    dedupWindowMs: DEFAULTS.dedupWindowMs,
    mode: { kind: "swap", stagingDb: 1, readyLag: 1000 },
    onProgress: () => {},
    log,
    ...(snapshotTopic ? { snapshots: { topic: snapshotTopic } } : {}),
  });
  const seconds = (performance.now() - start) / 1000;
  const r = new Redis(redisUrl);
  const boardPlayers = await r.zcard(keyLayout(BENCH_KEY_PREFIX).board(BENCH_BOARD));
  r.disconnect();
  return {
    seconds: round2(seconds),
    replayed: done.replayed,
    perSec: Math.round(done.replayed / seconds),
    ...(done.snapshot ? { snapshot: done.snapshot } : {}),
    players: boardPlayers,
  };
}

/** Logs every command of `r`'s server in its SLOWLOG until stop(), which says how many ran and the longest (as Redis timed it), and puts the settings back. */
async function recordCommands(r: Redis): Promise<{ stop(): Promise<{ commands: number; longestMs: number }> }> {
  const [, threshold] = (await r.config("GET", "slowlog-log-slower-than")) as [string, string];
  const [, length] = (await r.config("GET", "slowlog-max-len")) as [string, string];
  await r.config("SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "1000000");
  await r.slowlog("RESET");
  return {
    async stop() {
      const entries = (await r.slowlog("GET", -1)) as Array<[number, number, number, string[]]>;
      await r.config("SET", "slowlog-log-slower-than", threshold, "slowlog-max-len", length);
      const ours = entries.filter((e) => !["slowlog", "config"].includes(String(e[3][0]).toLowerCase()));
      return { commands: ours.length, longestMs: Math.max(0, ...ours.map((e) => e[2] / 1000)) };
    },
  };
}

/** SHA-256 of every board's and dedup set's DUMP, and the offsets. */
async function digest(r: Redis): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const keys = [...(await r.keys(`${BENCH_KEY_PREFIX}board:*`)), ...(await r.keys(`${BENCH_KEY_PREFIX}dedup:*`))].sort();
  for (const k of keys)
    out[k] = createHash("sha256")
      .update((await r.dumpBuffer(k))!)
      .digest("hex");
  out.offsets = JSON.stringify(Object.entries(await r.hgetall(keyLayout(BENCH_KEY_PREFIX).offsets)).sort());
  return out;
}
