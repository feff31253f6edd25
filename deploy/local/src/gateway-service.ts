// Starts the browser gateway (gateway/src/main.ts) as a child process in front of a running router,
// and starts it again on the same port after it died. Configured only through LADDER_* variables,
// as a deployment configures it: where it listens, the router it asks, its own monitor token (the
// board list and the shards' status; no other token), and any other settings (CORS origins, rate limits). Ready
// when it logs "gateway listening"; its bound port is read from that line, so tests can ask for port 0.
import type { Logger } from "@ladder/platform/logger";
import type { ManagedProcess } from "./managed-process.js";
import { withoutCredentials } from "./service-tokens.js";
import { spawnService, type Started } from "./spawn-service.js";

export interface GatewayServiceOptions {
  /** host:port; port 0 picks a free one (kept across restarts). */
  listen: string;
  /** The router's gRPC address. */
  routerAddress: string;
  /** The gateway's own token, one with the monitor role (LADDER_GATEWAY_TOKEN); none: no board list, no status. */
  monitorToken?: string;
  /** Any other LADDER_* settings. */
  settings?: Readonly<Record<string, string>>;
  /** The environment the child inherits (PATH and friends). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  log: Logger;
  readyTimeoutMs?: number;
}

export interface GatewayService {
  /** host:port it listens on. */
  readonly address: string;
  /** http://host:port/ : the dashboard; the API under /api/. */
  readonly url: string;
  process(): ManagedProcess;
  /** Starts it again (after it stopped or was killed) on the same address. */
  restart(): Promise<void>;
  /** SIGTERM, waiting for it to exit. */
  stop(): Promise<void>;
}

export async function startGatewayService(o: GatewayServiceOptions): Promise<GatewayService> {
  const start = (listen: string): Promise<Started> =>
    spawnService({
      name: "gateway",
      entry: "gateway/src/main.ts",
      env: {
        ...withoutCredentials(o.baseEnv), // its own token below, no other
        ...o.settings,
        LADDER_GATEWAY_LISTEN: listen,
        LADDER_GATEWAY_ROUTER: o.routerAddress,
        ...(o.monitorToken !== undefined ? { LADDER_GATEWAY_TOKEN: o.monitorToken } : {}),
      },
      ready: "gateway listening",
      timeoutMs: o.readyTimeoutMs ?? 60_000,
      log: o.log.child({ service: "gateway" }),
    });
  let now = await start(o.listen);
  const address = `${o.listen.slice(0, o.listen.lastIndexOf(":"))}:${now.port!}`;
  return {
    address,
    url: `http://${address}/`,
    process: () => now.process,
    async restart() {
      now = await start(address);
    },
    async stop() {
      await now.process.stop(10_000);
    },
  };
}
