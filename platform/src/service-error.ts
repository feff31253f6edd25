/**
 * The one conversion at a gRPC boundary: anything a handler throws becomes a status, with
 * `ladder-retriable: true` in its metadata when retrying may help (@ladder/model/errors), and
 * `retry-after-ms: <whole ms>` when the error says how long to wait first (a write quota's refill).
 * The status carries no details (no grpc-status-details-bin): these two trailers are the contract.
 */
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { LadderError } from "@ladder/model/errors";

/** The gRPC status for anything thrown by a handler. Internal details are not leaked. */
export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = LadderError.from(err);
  const metadata = new Metadata();
  if (e.retriable) metadata.set("ladder-retriable", "true");
  if (e.retryAfterMs !== undefined) metadata.set("retry-after-ms", String(e.retryAfterMs));
  const details = e.code === status.INTERNAL ? "internal error" : e.message;
  return { code: e.code, details, metadata };
}
