/**
 * One error type for the whole cluster. Every failure a client can see carries a gRPC
 * status code and whether retrying may help; `toServiceError` (@ladder/platform/service-error)
 * is the single place where anything caught at a gRPC boundary becomes a status. The codes are
 * grpc-js's `status` constants (plain numbers: nothing here does I/O).
 */
import { status, type ServiceError } from "@grpc/grpc-js";

export { status as Code };

export class LadderError extends Error {
  /** True when the same request may succeed later (the cause is transient). */
  readonly retriable: boolean;
  /** When retrying may help, the whole ms to wait first (a quota's refill); sent as the `retry-after-ms` trailer. */
  readonly retryAfterMs: number | undefined;

  constructor(
    /** gRPC status code. */
    readonly code: status,
    message: string,
    options: { retriable?: boolean; cause?: unknown; retryAfterMs?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "LadderError";
    this.retriable = options.retriable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Wraps anything thrown as a LadderError; unknown errors become INTERNAL. */
  static from(err: unknown): LadderError {
    if (err instanceof LadderError) return err;
    if (isServiceError(err))
      return new LadderError(err.code, err.details || err.message, { retriable: RETRIABLE.has(err.code), cause: err });
    const message = err instanceof Error ? err.message : String(err);
    return new LadderError(status.INTERNAL, message, { cause: err });
  }
}

const RETRIABLE = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.RESOURCE_EXHAUSTED, status.ABORTED]);

export const invalidArgument = (message: string) => new LadderError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new LadderError(status.NOT_FOUND, message);
export const unavailable = (message: string, cause?: unknown) => new LadderError(status.UNAVAILABLE, message, { retriable: true, cause });
export const deadlineExceeded = (message: string) => new LadderError(status.DEADLINE_EXCEEDED, message, { retriable: true });

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number" && "metadata" in err;
}
