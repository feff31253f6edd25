/**
 * gRPC clients of the cluster for the loadtest: several connections per service (a
 * grpc-js client is one HTTP/2 connection; a local subchannel pool keeps clients from
 * sharing one), used round-robin, and the per-call options every call carries: a
 * deadline and, when a token was given, `authorization: Bearer <token>`.
 */
import * as grpc from "@grpc/grpc-js";
import { createClient, type CallOptions, type ServiceClient } from "@ladder/common/grpc-adapter";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";

type IngestClient = ServiceClient<(typeof IngestService)["method"]>;
type RouterClient = ServiceClient<(typeof LeaderboardService)["method"]>;

export interface ClusterClients {
  ingest(): IngestClient;
  router(): RouterClient;
  /** Options for one call (fresh metadata each time: grpc-js may keep a reference). */
  callOptions(): CallOptions;
  close(): void;
}

export interface ClientSettings {
  router: string;
  ingest: string;
  connections: number;
  timeoutMs: number;
  token: string | undefined;
}

export function clusterClients(s: ClientSettings): ClusterClients {
  const channel: grpc.ClientOptions = { "grpc.use_local_subchannel_pool": 1 };
  const ingests = Array.from({ length: s.connections }, () => createClient(IngestService, s.ingest, grpc.credentials.createInsecure(), channel));
  const routers = Array.from({ length: s.connections }, () => createClient(LeaderboardService, s.router, grpc.credentials.createInsecure(), channel));
  let i = 0;
  let r = 0;
  const base = new grpc.Metadata();
  if (s.token !== undefined) base.set("authorization", `Bearer ${s.token}`);
  return {
    ingest: () => ingests[i++ % ingests.length]!,
    router: () => routers[r++ % routers.length]!,
    callOptions: () => ({ timeoutMs: s.timeoutMs, metadata: base.clone() }),
    close() {
      for (const c of [...ingests, ...routers]) c.close();
    },
  };
}

/** The name of a gRPC status code of an error (UNKNOWN for errors without one). */
export function statusName(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" && grpc.status[code] !== undefined ? grpc.status[code] : "UNKNOWN";
}
