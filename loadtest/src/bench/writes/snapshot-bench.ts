/**
 * Benchmark "snapshot": how long a rebuild of a big shard takes with and without a snapshot
 * (issue #11, item 4). Standalone (not part of `npm run bench`):
 *
 *   node --import tsx loadtest/src/bench/writes/snapshot-bench.ts [--players 1000000] [--per-player 20]
 *        [--tail 1000000] [--ids 100000] [--out loadtest/results]
 *
 * On its own Kafka broker and two redis-servers (local processes, nothing persisted):
 *
 *   1. produces `players × (perPlayer − 1)` score records into a fresh score topic of 64
 *      partitions (one shard owns them all), straight to Kafka like the seeder's Kafka path:
 *      round r gives every player an INCREMENT (value 1..100), at increasing times;
 *   2. rebuilds the shard from offset 0 into Redis A (swap mode, snapshots off): the state the
 *      shard node would have at that point;
 *   3. takes a snapshot of Redis A with the shard node's own code (takeSnapshot): how long
 *      reading it takes, the longest single Redis call of the read (Redis is held for each
 *      one), how long writing it to Kafka takes, its size;
 *   4. produces the tail: `tail` more records (the last round), so the log holds
 *      players × perPlayer records;
 *   5. rebuilds into Redis B without a snapshot (the whole log), then into Redis A with the
 *      snapshot (load it, replay the tail): the two figures to compare;
 *   6. checks A and B hold the same keys, byte for byte (Redis DUMP of every key, offsets).
 *
 * The `ids` records on each side of the snapshot carry event ids, so the snapshot holds dedup
 * sets and the tail deduplicates against them. Each rebuild is `rebuildShard` as the router's
 * AdminService runs it, in this process; its time is the call's, from start to return (the
 * consumer group's join, the once-a-second progress poll and the final swap included).
 * Figures go to <out>/snapshot-bench.json and .md.
 */
import { LogClient } from "@ladder/log/log-client";
import { wrapProducer } from "@ladder/log/record-producer";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, homedir, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { bulkProducer, createKafka, ensureScoreTopic, TopicIds, type Kafka, type Message } from "../../log-client.js";
import { rootLogger } from "@ladder/platform/logger";
import { slotOf } from "@ladder/model/placement";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { startInfra } from "@ladder/deploy/infra";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { builtFrom, keyLayout, shardStamp } from "@ladder/store";
import { ensureSnapshotTopic, snapshotTopicOf } from "@ladder/log/snapshot-topic";
import { rebuildShard, takeSnapshot, type RebuildProgress } from "@ladder/store/writer";
import { playerId } from "../../workload/player-ids.js";

const SLOTS = 64;
const SHARD = "shard-0";
const PREFIX = "lb:";
const BOARD = "global";
const SPEC = makeBoardSpec(DEFAULT_BOARD).spec!;
const BOARDS = new BoardSpecs([SPEC]);
const SLOT_LIST = Array.from({ length: SLOTS }, (_, i) => i);
const DEDUP_WINDOW_MS = 600_000;
const APPLY_BATCH = 500;

const { values: args } = parseArgs({
  options: {
    players: { type: "string", default: "1000000" },
    "per-player": { type: "string", default: "20" },
    tail: { type: "string", default: "" },
    ids: { type: "string", default: "100000" },
    out: { type: "string", default: "loadtest/results" },
  },
});
const players = Number(args.players);
const perPlayer = Number(args["per-player"]);
const tail = args.tail ? Number(args.tail) : players;
const idsAround = Number(args.ids);
const total = players * perPlayer;
const head = total - tail;
const log = rootLogger({ level: "warn", name: "snapshot-bench" });
const say = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const round2 = (x: number) => Math.round(x * 100) / 100;

const dataDir = await mkdtemp(join(tmpdir(), "ladder-snapshot-bench-"));
const infra = await startInfra({ redisCount: 2, dataDir, cacheDir: join(homedir(), ".cache", "ladder"), persistRedis: false, preferContainers: false, log });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping Kafka and Redis`);
    void infra.stop().finally(() => rm(dataDir, { recursive: true, force: true })).finally(() => process.exit(130));
  });
}
const ids = Array.from({ length: players }, (_, i) => playerId(i));
const slotsOf = Int16Array.from(ids, (id) => slotOf(id, SLOTS));
const kafka = createKafka(infra.kafka.brokers, "ladder-snapshot-bench", log);
const admin = kafka.admin();
const topicIds = new TopicIds(infra.kafka.brokers, "ladder-snapshot-bench-ids");
const [urlA, urlB] = infra.redis.map((r) => r.url) as [string, string];
const redisA = new Redis(urlA);
const redisB = new Redis(urlB);
try {
  await admin.connect();
  const topic = "bench.snapshot.scores";
  await ensureScoreTopic(kafka, { topic, numSlots: SLOTS }, { create: true });
  const stamp = shardStamp({ shardId: SHARD, topic, numSlots: SLOTS, slots: SLOT_LIST, boards: BOARDS });
  const from = builtFrom(stamp, (await topicIds.idOf(topic))!);
  const snapshotTopic = snapshotTopicOf(topic);
  const { partitions } = await ensureSnapshotTopic(admin, { topic: snapshotTopic });

  say(`producing ${head.toLocaleString()} records (${players.toLocaleString()} players × ${perPlayer - 1} rounds)`);
  const produceHead = await produce(kafka, topic, 0, head);
  say(`  ${produceHead.seconds} s, ${produceHead.perSec.toLocaleString()} records/s`);

  say("rebuilding Redis A from offset 0 (the state to snapshot)");
  const beforeTail = await rebuild(urlA, topic, stamp, from, undefined);
  say(`  ${beforeTail.seconds} s (${beforeTail.replayed.toLocaleString()} records, ${beforeTail.perSec.toLocaleString()}/s)`);

  say("taking a snapshot of Redis A");
  const producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false }); // as the shard node's
  await producer.connect();
  const memoryBefore = await usedMemory(redisA);
  const slowlog = await recordCommands(redisA);
  const t0 = performance.now();
  const taken = await takeSnapshot({ redis: redisA, keyPrefix: PREFIX, shardId: SHARD, builtFrom: from, slots: SLOT_LIST, producer: wrapProducer(producer), topic: snapshotTopic, partitions, slot: "a" });
  const snapshotSeconds = (performance.now() - t0) / 1000;
  const redisSide = await slowlog.stop();
  await producer.disconnect();
  if ("skipped" in taken) throw new Error(`snapshot skipped: ${taken.skipped}`);
  const m = taken.manifest;
  say(`  read in ${Math.round(taken.readMs)} ms (longest single Redis call ${taken.longestCallMs.toFixed(1)} ms as the client saw it, ${redisSide.longestMs.toFixed(2)} ms in Redis over ${redisSide.commands} commands; finish ${taken.finishMs.toFixed(1)} ms); written to Kafka in ${Math.round(taken.publishMs)} ms; ${m.players.toLocaleString()} players, ${(m.bytes / 1e6).toFixed(1)} MB in ${m.chunks.count} chunks`);

  say(`producing the tail: ${tail.toLocaleString()} records`);
  const produceTail = await produce(kafka, topic, head, total);

  say(`rebuilding Redis B from offset 0, no snapshot (${total.toLocaleString()} records)`);
  const full = await rebuild(urlB, topic, stamp, from, undefined);
  say(`  ${full.seconds} s (${full.perSec.toLocaleString()} records/s)`);

  say("rebuilding Redis A from the snapshot plus the tail");
  const fromSnapshot = await rebuild(urlA, topic, stamp, from, snapshotTopic);
  say(`  ${fromSnapshot.seconds} s (snapshot loaded in ${fromSnapshot.snapshot?.loadMs} ms, ${fromSnapshot.replayed.toLocaleString()} records replayed)`);

  const [stateA, stateB] = await Promise.all([digest(redisA), digest(redisB)]);
  const equal = JSON.stringify(stateA) === JSON.stringify(stateB);
  say(`snapshot + tail ${equal ? "equals" : "DIFFERS FROM"} the full replay (${Object.keys(stateA).length} keys compared by their DUMP)`);
  const speedup = round2(full.seconds / fromSnapshot.seconds);
  say(`rebuild ${speedup}x faster with the snapshot`);

  const result = {
    tool: "ladder-snapshot-bench",
    ranAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGB: Math.round(totalmem() / 1e9) },
    options: { players, perPlayer, records: total, tail, eventIdsEachSideOfTheSnapshot: idsAround, slots: SLOTS, applyBatch: APPLY_BATCH },
    produce: { head: produceHead, tail: produceTail },
    rebuildBeforeTail: beforeTail,
    snapshot: {
      players: m.players, keys: m.keys, records: m.records, bytes: m.bytes, chunks: m.chunks.count,
      readMs: Math.round(taken.readMs), longestCallMs: round2(taken.longestCallMs), longestInRedisMs: round2(redisSide.longestMs), redisCommands: redisSide.commands, finishMs: round2(taken.finishMs), publishMs: Math.round(taken.publishMs), totalSeconds: round2(snapshotSeconds),
      redisUsedMemoryBytes: memoryBefore,
    },
    rebuildWithoutSnapshot: full,
    rebuildWithSnapshot: fromSnapshot,
    speedup,
    equal,
  };
  await mkdir(args.out, { recursive: true });
  await writeFile(join(args.out, "snapshot-bench.json"), JSON.stringify(result, null, 2) + "\n");
  await writeFile(join(args.out, "snapshot-bench.md"), markdown(result));
  say(`wrote ${join(args.out, "snapshot-bench.json")} and .md`);
  if (!equal) process.exitCode = 1;
} finally {
  redisA.disconnect();
  redisB.disconnect();
  await admin.disconnect().catch(() => {});
  await topicIds.close().catch(() => {});
  await infra.stop();
  await rm(dataDir, { recursive: true, force: true });
}

interface Produced { records: number; seconds: number; perSec: number }

/** Records first..end-1: record n is round ⌊n / players⌋ of player n mod players. */
async function produce(kafka: Kafka, topic: string, first: number, end: number): Promise<Produced> {
  const producer = bulkProducer(kafka, 2);
  await producer.connect();
  const start = performance.now();
  const ingestedAtMs = Date.now();
  const roundStepMs = 60_000;
  const firstRoundMs = Date.now() - perPlayer * roundStepMs; // in the past, one minute (one time unit) per round
  const inFlight = new Set<Promise<unknown>>();
  let messages: Message[] = [];
  const flush = async () => {
    const batch = messages;
    messages = [];
    const p: Promise<unknown> = producer.sendBatch({ topicMessages: [{ topic, messages: batch }], acks: -1 }).then(() => inFlight.delete(p));
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
      const value = encodeScoreEvent({ board: BOARD, playerId: id, op: Operation.INCREMENT, value: BigInt(1 + ((index * 31 + round * 17) % 100)), timestampMs: BigInt(firstRoundMs + round * roundStepMs), eventId: withId ? `e-${n}` : "" }, ingestedAtMs);
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

interface Rebuilt { seconds: number; replayed: number; perSec: number; snapshot?: RebuildProgress["snapshot"]; players: number }

async function rebuild(redisUrl: string, topic: string, stamp: string, from: string, snapshotTopic: string | undefined): Promise<Rebuilt> {
  const start = performance.now();
  const done = await rebuildShard({
    logClient: LogClient.wrap(kafka), topic, shardId: SHARD, stamp, builtFrom: from, slots: SLOT_LIST, redisUrl, keyPrefix: PREFIX, boards: BOARDS,
    applyBatch: APPLY_BATCH, dedupWindowMs: DEDUP_WINDOW_MS, mode: { kind: "swap", stagingDb: 1, readyLag: 1000 }, onProgress: () => {}, log,
    ...(snapshotTopic ? { snapshots: { topic: snapshotTopic } } : {}),
  });
  const seconds = (performance.now() - start) / 1000;
  const r = new Redis(redisUrl);
  const boardPlayers = await r.zcard(keyLayout(PREFIX).board(BOARD));
  r.disconnect();
  return { seconds: round2(seconds), replayed: done.replayed, perSec: Math.round(done.replayed / seconds), ...(done.snapshot ? { snapshot: done.snapshot } : {}), players: boardPlayers };
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

async function usedMemory(r: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await r.info("memory"))?.[1] ?? 0);
}

/** SHA-256 of every board's and dedup set's DUMP, and the offsets. */
async function digest(r: Redis): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const keys = [...(await r.keys(`${PREFIX}board:*`)), ...(await r.keys(`${PREFIX}dedup:*`))].sort();
  for (const k of keys) out[k] = createHash("sha256").update((await r.dumpBuffer(k))!).digest("hex");
  out.offsets = JSON.stringify(Object.entries(await r.hgetall(keyLayout(PREFIX).offsets)).sort());
  return out;
}

function markdown(r: {
  ranAt: string; options: { players: number; perPlayer: number; records: number; tail: number; eventIdsEachSideOfTheSnapshot: number };
  produce: { head: Produced; tail: Produced }; rebuildBeforeTail: Rebuilt;
  snapshot: { players: number; keys: number; bytes: number; chunks: number; readMs: number; longestCallMs: number; longestInRedisMs: number; redisCommands: number; finishMs: number; publishMs: number; redisUsedMemoryBytes: number };
  rebuildWithoutSnapshot: Rebuilt; rebuildWithSnapshot: Rebuilt; speedup: number; equal: boolean;
}): string {
  const o = r.options;
  const n = (x: number) => x.toLocaleString("en-US");
  return `# Snapshot benchmark

Ran ${r.ranAt} on the 2-core development machine (Kafka, Redis and the benchmark share the cores), with
\`node --import tsx loadtest/src/bench/writes/snapshot-bench.ts --players ${o.players} --per-player ${o.perPlayer}\`.

One shard owning all 64 partitions; ${n(o.players)} players; the log holds ${n(o.records)} records
(${o.perPlayer} INCREMENTs per player); the snapshot was taken ${n(o.tail)} records before the log's end;
the ${n(o.eventIdsEachSideOfTheSnapshot)} records on each side of it carry event ids (dedup sets in the snapshot).
A tail of ${n(o.tail)} records ${o.tail === 1_000_000 ? "is the most the default snapshot interval (\`LADDER_SNAPSHOT_RECORDS\`) leaves to replay" : "was replayed after the snapshot"}.

| rebuild of the shard | records replayed | seconds | |
|---|---:|---:|---|
| without a snapshot (from offset 0) | ${n(r.rebuildWithoutSnapshot.replayed)} | ${r.rebuildWithoutSnapshot.seconds.toFixed(2)} | ${n(r.rebuildWithoutSnapshot.perSec)} records/s |
| with the snapshot (load, then the tail) | ${n(r.rebuildWithSnapshot.replayed)} | ${r.rebuildWithSnapshot.seconds.toFixed(2)} | snapshot loaded in ${((r.rebuildWithSnapshot.snapshot?.loadMs ?? 0) / 1000).toFixed(2)} s |
| **speed-up** | | **${r.speedup}x** | |

Both rebuilt boards hold ${n(r.rebuildWithSnapshot.players)} players; the two Redis servers ${r.equal ? "held the same keys byte for byte" : "**differed**"} afterwards
(SHA-256 of the DUMP of every board and dedup set, and the offsets).

| taking the snapshot (${n(r.snapshot.players)} players, ${r.snapshot.keys} keys) | |
|---|---:|
| reading the shard: begin, pages of 4,096 members, finish (Redis serves other clients between the calls) | ${r.snapshot.readMs} ms |
| the longest single command of the read in Redis (its SLOWLOG, every command logged): Redis is held for at most this long | ${r.snapshot.longestInRedisMs} ms (of ${r.snapshot.redisCommands} commands) |
| the longest single call of the read as the client saw it (its event loop included) | ${r.snapshot.longestCallMs} ms |
| the finish (offsets, keys, members changed during the read) | ${r.snapshot.finishMs} ms |
| written to Kafka (${r.snapshot.chunks} chunks of 512 KiB, acks=all, one at a time) | ${r.snapshot.publishMs} ms |
| size in Kafka | ${(r.snapshot.bytes / 1e6).toFixed(1)} MB (${(r.snapshot.bytes / r.snapshot.players).toFixed(1)} bytes per player; Redis used ${(r.snapshot.redisUsedMemoryBytes / 1e6).toFixed(0)} MB) |

Producing the log: ${n(r.produce.head.records + r.produce.tail.records)} records at ${n(r.produce.head.perSec)} records/s. The rebuild that made the
state to snapshot replayed ${n(r.rebuildBeforeTail.replayed)} records in ${r.rebuildBeforeTail.seconds.toFixed(2)} s.
`;
}
