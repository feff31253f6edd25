/**
 * The standard gRPC health service (grpc.health.v1), registered the same way on every
 * server. "" is the whole server; each registered service has its own status. Watch
 * streams the current status, then every change, until the caller hangs up.
 */
import type * as grpc from "@grpc/grpc-js";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@ladder/proto/grpc/health/v1/health_pb";
import { addService } from "./grpc-adapter.js";
import { notFound } from "@ladder/model/errors";
import type { Logger } from "./logger.js";

export { Status as ServingStatus };

export class HealthRegistry {
  private readonly statuses = new Map<string, Status>([["", Status.SERVING]]);
  private readonly watchers = new Set<() => void>();

  /** Sets the status of `service` ("" = the server as a whole). */
  set(service: string, status: Status): void {
    this.statuses.set(service, status);
    for (const w of this.watchers) w();
  }

  /** Marks every service NOT_SERVING: the first step of a graceful shutdown. */
  drain(): void {
    for (const name of this.statuses.keys()) this.set(name, Status.NOT_SERVING);
  }

  register(server: grpc.Server, log: Logger): void {
    addService(
      server,
      Health,
      {
        check: async (req) => {
          const status = this.statuses.get(req.service);
          if (status === undefined) throw notFound(`unknown service "${req.service}"`);
          return { status };
        },
        watch: (req, send, ctx) => this.watch(req.service, send, ctx.signal),
      },
      log,
    );
  }

  private watch(service: string, send: (m: { status: Status }) => void, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let last: Status | undefined;
      const push = () => {
        const status = this.statuses.get(service) ?? Status.SERVICE_UNKNOWN;
        if (status !== last) send({ status: (last = status) });
      };
      this.watchers.add(push);
      push();
      signal.addEventListener("abort", () => {
        this.watchers.delete(push);
        resolve();
      });
    });
  }
}
