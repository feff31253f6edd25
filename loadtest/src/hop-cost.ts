// Measures what one hop costs on this machine, to decide how the router reads shards: a Redis script
// round trip (the router's direct read of a shard) against a gRPC unary round trip between two Node
// processes (what a ShardService hop would add on top of that). Both sequential (latency) and with
// 64 calls in flight (throughput). Prints a table and saves loadtest/results/hop-cost.json.
//   npm run bench:hop -- [--redis redis://127.0.0.1:7001] [--calls 20000]
import * as grpc from "@grpc/grpc-js";
import { fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createClient } from "@ladder/client/grpc-stub";
import { listen } from "@ladder/platform/grpc-adapter";
import { HealthRegistry } from "@ladder/platform/health";
import { silentLogger } from "@ladder/platform/logger";
import { ShardReader } from "@ladder/store";
import { ShardWriter } from "@ladder/store/writer";
import { Health } from "@ladder/proto/grpc/health/v1/health_pb";

const { values } = parseArgs({
  options: {
    redis: { type: "string", default: "redis://127.0.0.1:7001" },
    calls: { type: "string", default: "20000" },
    serve: { type: "boolean", default: false },
  },
});

if (values.serve) {
  // child: a gRPC server in its own process, answering Health.Check
  const server = new grpc.Server();
  new HealthRegistry().register(server, silentLogger());
  const port = await listen(server, "127.0.0.1:0");
  process.send!({ port });
} else {
  const calls = Number(values.calls);
  const child = fork(new URL(import.meta.url).pathname, ["--serve"]);
  const port = await new Promise<number>((resolve) => child.once("message", (m: { port: number }) => resolve(m.port)));
  const client = createClient(Health, `127.0.0.1:${port}`);
  const redis = new Redis(values.redis);
  const stamp = "bench|hop-cost"; // writer and reader agree on it: the shard serves
  const writer = new ShardWriter({ shardId: "bench", stamp, builtFrom: stamp, redis, keyPrefix: "bench-hop:", dedupWindowMs: 0 });
  await writer.markServing(600_000);
  const reader = new ShardReader({ shardId: "bench", stamp, redis, keyPrefix: "bench-hop:" });
  const hops = { "redis script": () => reader.entry("b", "p"), "grpc unary": () => client.check({ service: "" }) };
  const rows = [];
  for (const [name, fn] of Object.entries(hops)) {
    for (let i = 0; i < 2000; i++) await fn(); // warm-up
    rows.push({ name, sequentialPerSec: await rate(fn, calls, 1), inFlight64PerSec: await rate(fn, calls, 64) });
  }
  const ratio = {
    sequential: rows[0]!.sequentialPerSec / rows[1]!.sequentialPerSec,
    inFlight64: rows[0]!.inFlight64PerSec / rows[1]!.inFlight64PerSec,
  };
  console.table(rows);
  console.log(
    `redis script round trips per gRPC round trip: ${ratio.sequential.toFixed(2)}x sequential, ${ratio.inFlight64.toFixed(2)}x with 64 in flight`,
  );
  mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
  writeFileSync(
    new URL("../results/hop-cost.json", import.meta.url),
    JSON.stringify({ at: new Date().toISOString(), calls, rows, ratio }, null, 2),
  );
  client.close();
  await redis.quit();
  child.kill();
}

async function rate(fn: () => Promise<unknown>, n: number, concurrency: number): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) await fn();
    }),
  );
  return Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9));
}
