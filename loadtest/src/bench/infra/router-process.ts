/**
 * A router (router/src/main.ts) as a real process of the bench's own, on a port of the bench's choosing, its metrics
 * on any free port (the default, 9464, is the local cluster's), configured by the LADDER_* settings given and no other
 * (service-process.ts), resolved once it logged its ready line: the grpc and rank-index benchmarks' extra routers over
 * a cluster's shards. It reads the board definitions from the Kafka broker it is given before it serves
 * (model/src/board-definitions.ts), then follows them.
 */
import { spawnService } from "@ladder/deploy/spawn-service";
import type { FixtureDeps } from "./infra-fixtures.js";
import { benchPort } from "./ports.js";
import { baseEnv } from "./service-process.js";

export interface RouterProcess {
  address: string;
  pid: number;
  /** Its metrics server's port (GET /metrics). */
  metricsPort: number;
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
  return { address, pid: started.process.pid!, metricsPort: started.metricsPort!, stop: () => entry.release() };
}
