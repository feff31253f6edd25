/**
 * One error type for the whole cluster. Every failure a client can see carries a gRPC
 * status code and whether retrying may help; `toServiceError` is the single place where
 * anything caught at a gRPC boundary becomes a status.
 */
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";

export { status as Code };

export class LadderError extends Error {
  constructor(
    /** gRPC status code. */
    readonly code: status,
    message: string,
    /** True when the same request may succeed later (the cause is transient). */
    readonly retriable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LadderError";
  }

  /** Wraps anything thrown as a LadderError; unknown errors become INTERNAL. */
  static from(err: unknown): LadderError {
    if (err instanceof LadderError) return err;
    if (isServiceError(err)) return new LadderError(err.code, err.details || err.message, RETRIABLE.has(err.code), { cause: err });
    const message = err instanceof Error ? err.message : String(err);
    return new LadderError(status.INTERNAL, message, false, { cause: err });
  }
}

const RETRIABLE = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.RESOURCE_EXHAUSTED, status.ABORTED]);

export const invalidArgument = (message: string) => new LadderError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new LadderError(status.NOT_FOUND, message);
export const unavailable = (message: string, cause?: unknown) => new LadderError(status.UNAVAILABLE, message, true, { cause });
export const deadlineExceeded = (message: string) => new LadderError(status.DEADLINE_EXCEEDED, message, true);

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number" && "metadata" in err;
}

/** The gRPC status for anything thrown by a handler. Internal details are not leaked. */
export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = LadderError.from(err);
  const metadata = new Metadata();
  if (e.retriable) metadata.set("ladder-retriable", "true");
  const details = e.code === status.INTERNAL ? "internal error" : e.message;
  return { code: e.code, details, metadata };
}
