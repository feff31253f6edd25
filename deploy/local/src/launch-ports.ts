// The fixed ports a launcher binds (Kafka's client port, every Redis and Sentinel, the router's,
// ingest's and the gateway's listen ports; port 0 means any, so none), checked before anything starts:
// one already taken (by a launcher on another data dir, or anything else) is said at once, in one
// line, instead of as a stack trace after Kafka's 15 s wait for its port.
import type { Config } from "@ladder/platform/config";
import { portIsFree } from "./free-port.js";
import { localRedisPorts, type LocalConfig } from "./local-config.js";

export interface NamedPort {
  readonly what: string;
  readonly port: number;
}

/** Every fixed port of the local cluster, with what takes it. */
export function launcherPorts(local: LocalConfig, cluster: Pick<Config, "routerListen" | "ingestListen" | "gatewayListen">): NamedPort[] {
  const ports: NamedPort[] = [{ what: "kafka (LADDER_KAFKA_PORT)", port: local.kafkaPort }];
  for (const [first, last] of localRedisPorts(local.redisBasePort, local.shards, local.replicas)) {
    for (let port = first; port <= last; port++) ports.push({ what: "redis (LADDER_REDIS_BASE_PORT)", port });
  }
  const listen = (what: string, address: string) => {
    const port = Number(address.slice(address.lastIndexOf(":") + 1));
    if (port > 0) ports.push({ what, port });
  };
  listen("router (LADDER_ROUTER_LISTEN)", cluster.routerListen);
  listen("ingest (LADDER_INGEST_LISTEN)", cluster.ingestListen);
  listen("gateway (LADDER_GATEWAY_LISTEN)", cluster.gatewayListen);
  return ports;
}

/** The one line about the first of `ports` that is taken, or undefined when all are free. */
export async function portInUse(ports: readonly NamedPort[]): Promise<string | undefined> {
  const free = await Promise.all(ports.map((p) => portIsFree(p.port)));
  const taken = ports.find((_, i) => !free[i]);
  return (
    taken &&
    `port ${taken.port} for ${taken.what} is in use by another process (a ladder on another data dir?); stop it, or choose other ports`
  );
}
