/**
 * Clients of the cluster for the loadtest, from the client library: several connections per
 * service (a LadderClient holds one HTTP/2 connection per address; a local subchannel pool keeps
 * clients from sharing one), used round-robin. Every call carries the deadline and, when a token
 * was given, `authorization: Bearer <token>`. The load tool measures what the cluster answers, so
 * its clients never retry and send updates as the tool made them (no event ids added).
 */
import * as grpc from "@grpc/grpc-js";
import { LadderClient } from "@ladder/client";
import type { LoadtestOptions } from "./options.js";

type IngestClient = LadderClient["ingest"];
type RouterClient = LadderClient["leaderboard"];

export interface ClusterClients {
  ingest(): IngestClient;
  router(): RouterClient;
  close(): void;
}

export function clusterClients(s: Pick<LoadtestOptions, "router" | "ingest" | "connections" | "timeoutMs" | "token">): ClusterClients {
  const { router, ingest, token, timeoutMs } = s;
  const channelOptions = { "grpc.use_local_subchannel_pool": 1 };
  const connect = () => new LadderClient({ router, ingest, token, timeoutMs, retry: false, assignEventIds: false, channelOptions });
  const clients = Array.from({ length: s.connections }, connect);
  let i = 0;
  let r = 0;
  return {
    ingest: () => clients[i++ % clients.length]!.ingest,
    router: () => clients[r++ % clients.length]!.leaderboard,
    close() {
      for (const c of clients) c.close();
    },
  };
}

/** The name of a gRPC status code of an error (UNKNOWN for errors without one). */
export function statusName(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" && grpc.status[code] !== undefined ? grpc.status[code] : "UNKNOWN";
}
