/**
 * The router (router/src/main.ts) as a real process over a set of shards' Redis, on a
 * port of the bench's choosing, reads open. It reads the board definitions from the bench's
 * Kafka broker before it serves (model/src/board-definitions.ts), then follows them (one fetch
 * waiting at the broker at a time); the bench's boards need no definition.
 */
import type { RedisServer } from "@ladder/deploy/redis-server";
import { BENCH_KEY_PREFIX, BENCH_SLOTS } from "./bench-board.js";
import type { FixtureDeps } from "./infra-fixtures.js";
import { benchPort } from "./ports.js";
import { startService } from "./service-process.js";

export interface RouterProcess {
  address: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startRouter(
  d: FixtureDeps,
  shardIds: readonly string[],
  servers: readonly RedisServer[],
  kafkaBrokers: readonly string[],
): Promise<RouterProcess> {
  const address = `127.0.0.1:${await benchPort(d.ports)}`;
  const settings = {
    LADDER_SHARDS: shardIds.map((id, i) => `${id}=${servers[i]!.url}`).join(","),
    LADDER_SLOTS: String(BENCH_SLOTS),
    LADDER_KEY_PREFIX: BENCH_KEY_PREFIX,
    LADDER_ROUTER_LISTEN: address,
    LADDER_ROUTER_METRICS_LISTEN: "127.0.0.1:0", // any free port: the default (9464) is the local cluster's
    LADDER_KAFKA_BROKERS: kafkaBrokers.join(","),
    LADDER_IMPLICIT_BOARDS: "1",
  };
  const started = await startService({ name: "router", entry: "router/src/main.ts", settings, ready: "router listening", log: d.log });
  const entry = d.cleanup.push(`router ${address}`, async () => void (await started.process.stop(10_000)));
  return { address, pid: started.process.pid!, stop: () => entry.release() };
}
