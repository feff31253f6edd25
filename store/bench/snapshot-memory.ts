/**
 * What taking a snapshot (store/src/writer/snapshot.ts) costs the node's memory: the rise of this
 * process's RSS, V8 heap and buffers over the take, above what they were before it, for a shard of
 * `--players` players (a board of that many members and their counts of records, one hash).
 *
 * It starts its own redis-server (bench-redis.ts) and fills it with ZADD and HSET. The chunks go to
 * a writer that counts their bytes and drops them, in place of Kafka: what is measured is the node's
 * memory while it reads the shard, assembles the body and hands the chunks over, not the broker's
 * acknowledgements (test/snapshot.int and shard-node/src/snapshot.int write real ones). Memory is
 * sampled every 10 ms; a GC runs before the take when node runs with --expose-gc.
 *
 *   node --expose-gc --import tsx store/bench/snapshot-memory.ts [--players 5000000] [--takes 2] [--out file]
 *
 * Prints one JSON line per take; with --out, appends them to that file.
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_RECORD_COUNT_BUCKETS, recordCountBucket } from "@ladder/model/record-counts";
import { keyLayout } from "../src/keys.js";
import type { SnapshotWriter } from "../src/writer/log-port.js";
import { takeSnapshot } from "../src/writer/snapshot.js";
import { startBenchRedis } from "./bench-redis.js";

const { values: opt } = parseArgs({
  options: {
    players: { type: "string", default: "5000000" },
    takes: { type: "string", default: "2" },
    out: { type: "string" },
  },
});
const PLAYERS = Number(opt.players);
const TAKES = Number(opt.takes);
const PREFIX = "bench:";
const FROM = "snapshot-memory-bench";

const server = await startBenchRedis();
const { redis } = server;
try {
  const k = keyLayout(PREFIX);
  for (let i = 0; i < PLAYERS; i += 10_000) {
    const scores: Array<string | number> = [];
    const counts = new Map<string, Array<string | number>>(); // by hash: one slot's buckets (model/src/record-counts.ts)
    for (let j = i; j < Math.min(PLAYERS, i + 10_000); j++) {
      const id = `p:${String(j).padStart(12, "0")}`;
      scores.push(((j * 7919) % 1_000_000) * 1000 + (j % 997), id);
      const key = k.recordCounts(0, recordCountBucket(id, DEFAULT_RECORD_COUNT_BUCKETS));
      if (!counts.has(key)) counts.set(key, []);
      counts.get(key)!.push(id, 1 + (j % 5));
    }
    const pipe = redis.pipeline().zadd(k.board("bench"), ...scores);
    for (const [key, fields] of counts) pipe.hset(key, ...fields);
    await pipe.exec();
  }
  await redis.hset(k.offsets, "0", String(PLAYERS - 1));
  await redis.set(k.builtFrom, FROM);

  let sent = 0;
  const sink: SnapshotWriter = {
    async send(_topic, records) {
      for (const r of records) sent += r.value?.length ?? 0;
      return records.map(() => ({ partition: 1, baseOffset: "0" }));
    },
  };
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  for (let take = 1; take <= TAKES; take++) {
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage();
    const peak = { rss: before.rss, heap: before.heapUsed, buffers: before.arrayBuffers };
    const sample = setInterval(() => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heap = Math.max(peak.heap, m.heapUsed);
      peak.buffers = Math.max(peak.buffers, m.arrayBuffers);
    }, 10);
    sent = 0;
    const t0 = performance.now();
    const res = await takeSnapshot({
      redis,
      keyPrefix: PREFIX,
      shardId: "bench",
      builtFrom: FROM,
      slots: [0],
      producer: sink,
      topic: "bench.snapshots",
      partitions: 2,
      slot: take % 2 ? "a" : "b",
    });
    clearInterval(sample);
    if ("skipped" in res) throw new Error(`snapshot skipped: ${res.skipped}`);
    const line = JSON.stringify({
      players: PLAYERS,
      take,
      ms: Math.round(performance.now() - t0),
      bodyMB: mb(res.manifest.bytes),
      sentMB: mb(sent),
      keys: res.manifest.keys,
      snapshotPlayers: res.manifest.players,
      rssBeforeMB: mb(before.rss),
      rssRiseMB: mb(peak.rss - before.rss),
      heapRiseMB: mb(peak.heap - before.heapUsed),
      buffersRiseMB: mb(peak.buffers - before.arrayBuffers),
    });
    console.log(line);
    if (opt.out) appendFileSync(opt.out, `${line}\n`);
  }
} finally {
  server.stop();
}
