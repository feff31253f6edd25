/**
 * The one conversion at a gRPC boundary: anything a handler throws becomes a status, with
 * `ladder-retriable: true` in its metadata when retrying may help (@ladder/model/errors).
 */
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { LadderError } from "@ladder/model/errors";

/** The gRPC status for anything thrown by a handler. Internal details are not leaked. */
export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = LadderError.from(err);
  const metadata = new Metadata();
  if (e.retriable) metadata.set("ladder-retriable", "true");
  const details = e.code === status.INTERNAL ? "internal error" : e.message;
  return { code: e.code, details, metadata };
}
