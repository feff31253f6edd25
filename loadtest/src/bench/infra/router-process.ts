/**
 * A router (router/src/main.ts) as a real process of the bench's own, on a port of the bench's
 * choosing, its metrics on any free port (the default, 9464, is the local cluster's), configured
 * by the LADDER_* settings given and no other (service-process.ts), resolved once it logged its
 * ready line: the reads benchmark's over its seeded layouts (reads open, the
 * bench's boards implicit), the grpc benchmark's second router over its cluster's shards with
 * the top cache on. It reads the board definitions from the Kafka broker it is given before it
 * serves (model/src/board-definitions.ts), then follows them.
 */
import type { RedisServer } from "@ladder/deploy/redis-server";
import { spawnService } from "@ladder/deploy/spawn-service";
import { BENCH_KEY_PREFIX, BENCH_SLOTS } from "./bench-board.js";
import type { FixtureDeps } from "./infra-fixtures.js";
import { benchPort } from "./ports.js";
import { baseEnv } from "./service-process.js";

export interface RouterProcess {
  address: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startRouter(d: FixtureDeps, label: string, settings: Readonly<Record<string, string>>): Promise<RouterProcess> {
  const address = `127.0.0.1:${await benchPort(d.ports)}`;
  const started = await spawnService({
    name: label,
    entry: "router/src/main.ts",
    env: {
      ...baseEnv(),
      LADDER_LOG_LEVEL: "info",
      ...settings,
      LADDER_ROUTER_LISTEN: address,
      LADDER_ROUTER_METRICS_LISTEN: "127.0.0.1:0",
    },
    ready: "router listening",
    timeoutMs: 60_000,
    log: d.log,
  });
  const entry = d.cleanup.push(`${label} ${address}`, async () => void (await started.process.stop(10_000)));
  return { address, pid: started.process.pid!, stop: () => entry.release() };
}

/** The settings of a router over `servers` (shard i on servers[i]) holding the bench's board. */
export function layoutRouterSettings(shardIds: readonly string[], servers: readonly RedisServer[], kafkaBrokers: readonly string[]) {
  return {
    LADDER_SHARDS: shardIds.map((id, i) => `${id}=${servers[i]!.url}`).join(","),
    LADDER_SLOTS: String(BENCH_SLOTS),
    LADDER_KEY_PREFIX: BENCH_KEY_PREFIX,
    LADDER_KAFKA_BROKERS: kafkaBrokers.join(","),
    LADDER_IMPLICIT_BOARDS: "1",
  };
}
