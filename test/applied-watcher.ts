// A worker thread that times acknowledged batches until their shards applied them, for tests that
// drive writers in the main thread (backpressure.int.test.ts). It runs apart from the writers so that
// their work does not delay its looks: in the writers' event loop, 24 writers on two busy cores made
// a 5 ms poll loop take 23 ms at the median and up to 116 ms, and every batch waiting then was timed
// that much late.
//
// Protocol (messages from the test): { kind: "batch", at, offsets } for each acknowledged batch (at: the
// acknowledgement, Date.now(); offsets: [partition, last offset] pairs), then { kind: "stop" }. It reads
// every shard's applied offsets (the hash at `offsetsKey` in each Redis) every `pollMs`, and a batch is
// applied at the first look that finds all its offsets applied. After the stop, once every batch is
// applied, it answers { freshnessMs: each batch's time from acknowledgement to that look, loopMs: the
// time between the starts of consecutive looks } and exits.
//
// Started with `new Worker(new URL("./applied-watcher.ts", import.meta.url), { workerData })`: Node runs
// the TypeScript file itself (type stripping), so it imports only what Node resolves on its own.
import { parentPort, workerData } from "node:worker_threads";
import { Redis } from "ioredis";

export interface WatcherData {
  redisUrls: string[];
  offsetsKey: string;
  pollMs: number;
}
export type WatcherMessage = { kind: "batch"; at: number; offsets: Array<[number, bigint]> } | { kind: "stop" };
export interface WatcherAnswer {
  freshnessMs: number[];
  loopMs: number[];
}

const { redisUrls, offsetsKey, pollMs } = workerData as WatcherData;
const port = parentPort!;
const redis = redisUrls.map((url) => new Redis(url, { maxRetriesPerRequest: null }));
const waiting: Array<{ at: number; offsets: Array<[number, bigint]> }> = [];
const freshnessMs: number[] = [];
const loopMs: number[] = [];
let stopping = false;

port.on("message", (m: WatcherMessage) => {
  if (m.kind === "batch") waiting.push({ at: m.at, offsets: m.offsets });
  else stopping = true;
});

let last = Date.now();
while (!stopping || waiting.length > 0) {
  const start = Date.now();
  loopMs.push(start - last);
  last = start;
  const applied = new Map<number, bigint>();
  for (const hash of await Promise.all(redis.map((r) => r.hgetall(offsetsKey))))
    for (const [p, o] of Object.entries(hash)) applied.set(Number(p), BigInt(o));
  const now = Date.now();
  for (let i = waiting.length - 1; i >= 0; i--) {
    const w = waiting[i]!;
    if (w.offsets.every(([p, o]) => (applied.get(p) ?? -1n) >= o)) {
      freshnessMs.push(now - w.at);
      waiting.splice(i, 1);
    }
  }
  await new Promise((r) => setTimeout(r, pollMs));
}
for (const r of redis) r.disconnect();
port.postMessage({ freshnessMs, loopMs } satisfies WatcherAnswer);
port.close();
