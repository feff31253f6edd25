/**
 * The one conversion of the gateway's failures into HTTP answers. Whatever a handler throws — a
 * gRPC status from the router (through the client library), a LadderError of the gateway's own
 * (a bad parameter, a limit), anything else — becomes a status code and a JSON body naming the
 * gRPC status and its message:
 *
 *   404 {"error":{"code":"NOT_FOUND","message":"player alice has no score on board arena"}}
 *
 * The codes map as Google's HTTP mapping of gRPC statuses does (INVALID_ARGUMENT, FAILED_PRECONDITION
 * and OUT_OF_RANGE 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404, ALREADY_EXISTS and
 * ABORTED 409, RESOURCE_EXHAUSTED 429, CANCELLED 499, UNIMPLEMENTED 501, UNAVAILABLE 503,
 * DEADLINE_EXCEEDED 504, the rest 500). INTERNAL errors say "internal error" and are logged; their
 * details never reach the caller.
 */
import { Code, LadderError } from "@ladder/model/errors";

const HTTP_STATUS: Readonly<Partial<Record<Code, number>>> = Object.freeze({
  [Code.OK]: 200,
  [Code.CANCELLED]: 499,
  [Code.INVALID_ARGUMENT]: 400,
  [Code.FAILED_PRECONDITION]: 400,
  [Code.OUT_OF_RANGE]: 400,
  [Code.DEADLINE_EXCEEDED]: 504,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.ABORTED]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.UNAUTHENTICATED]: 401,
  [Code.RESOURCE_EXHAUSTED]: 429,
  [Code.UNIMPLEMENTED]: 501,
  [Code.UNAVAILABLE]: 503,
});

/** The JSON body of an error: the gRPC status's name and its message. */
export interface ErrorBody {
  error: { code: string; message: string };
}

export interface HttpFailure {
  status: number;
  /** Headers of the answer besides the JSON type (Retry-After, Allow). */
  headers: Record<string, string>;
  body: ErrorBody;
  /** Set for INTERNAL: the caller logs it (its message is not in the body). */
  internal?: LadderError;
}

/** A refusal of the gateway's own: a gRPC code, and where HTTP says more, its own status and headers. */
export class GatewayRefusal extends LadderError {
  constructor(
    code: Code,
    message: string,
    readonly http: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(code, message);
  }
}

/** The HTTP status of a gRPC status code. */
export function httpStatusOf(code: Code): number {
  return HTTP_STATUS[code] ?? 500;
}

/** Anything thrown, as an HTTP status and body. */
export function toHttpFailure(err: unknown): HttpFailure {
  const e = LadderError.from(err);
  const internal = e.code === Code.INTERNAL || httpStatusOf(e.code) === 500;
  const http = e instanceof GatewayRefusal ? e.http : {};
  return {
    status: http.status ?? httpStatusOf(e.code),
    headers: http.headers ?? {},
    body: { error: { code: Code[e.code] ?? "UNKNOWN", message: internal ? "internal error" : e.message } },
    ...(internal ? { internal: e } : {}),
  };
}

/** An error of the gateway's own with a gRPC code (a parameter, a limit): thrown, then converted above. */
export const refuse = (code: Code, message: string, http?: GatewayRefusal["http"]) => new GatewayRefusal(code, message, http);
