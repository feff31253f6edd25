/**
 * The browser gateway (gateway.ts): configuration, the router's client, the HTTP server, shutdown.
 * Wiring only.
 */
import { LadderClient } from "@ladder/client";
import { loadConfig } from "@ladder/platform/config";
import { rootLogger } from "@ladder/platform/logger";
import { onShutdown } from "@ladder/platform/shutdown";
import { startGateway } from "./gateway.js";

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "gateway" });
const client = new LadderClient({
  router: config.gatewayRouter,
  // TLS when a CA is configured (LADDER_TLS_CA_FILE) or the servers use TLS (system CAs), as the CLI
  tls: config.tlsCaFile ? { caFile: config.tlsCaFile } : config.tls !== undefined,
  onRetry: (e) => log.debug({ method: e.method, attempt: e.attempt, delayMs: e.delayMs }, "router call retried"),
});
if (config.gatewayToken === undefined) log.warn("no LADDER_GATEWAY_TOKEN: /api/boards and /api/status answer 503");
const gateway = await startGateway({
  listen: config.gatewayListen,
  client,
  monitorToken: config.gatewayToken,
  corsOrigins: config.gatewayCorsOrigins,
  limits: { rate: config.gatewayRate, burst: config.gatewayBurst, streams: config.gatewayStreams },
  streamStallMs: config.gatewayStreamStallMs,
  trustProxy: config.gatewayTrustProxy,
  log: log.child({ component: "http" }),
});
log.info(
  {
    address: config.gatewayListen,
    port: gateway.port,
    url: gateway.url,
    router: config.gatewayRouter,
    corsOrigins: config.gatewayCorsOrigins,
  },
  "gateway listening",
);

onShutdown(log, async () => {
  await gateway.close();
  client.close();
});
