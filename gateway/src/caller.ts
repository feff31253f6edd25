/**
 * Who is calling: the bearer token the gateway forwards to the router, and the client a rate limit
 * counts against.
 *
 * TOKEN. The router decides every read (reads are open unless LADDER_READS=token, docs/architecture.md):
 * the gateway forwards the caller's token with each call it makes for it, never one of its own.
 * A caller sends it as `Authorization: Bearer <token>`, or — for a browser's EventSource, which
 * cannot set headers — as the `access_token` query parameter (RFC 6750 §2.3; such URLs may be
 * kept in logs and histories along the way: the header is preferred wherever it can be set; the
 * gateway itself logs paths only). Both at once must agree.
 *
 * CLIENT. The connection's peer address; behind a reverse proxy (LADDER_GATEWAY_TRUST_PROXY=1),
 * the last address of X-Forwarded-For, the one the proxy itself saw (earlier ones are the
 * client's own word).
 */
import type { IncomingMessage } from "node:http";
import { Code } from "@ladder/model/errors";
import { refuse } from "./http-errors.js";

/** The caller's bearer token, or undefined when it sent none. */
export function callerToken(req: IncomingMessage, search: URLSearchParams): string | undefined {
  const header = req.headers.authorization;
  const fromHeader = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (header !== undefined && fromHeader === undefined)
    throw refuse(Code.UNAUTHENTICATED, 'the Authorization header is not "Bearer <token>"');
  const fromQuery = search.get("access_token") ?? undefined;
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery)
    throw refuse(Code.INVALID_ARGUMENT, "two different tokens: the Authorization header's and access_token");
  return fromHeader ?? (fromQuery === "" ? undefined : fromQuery);
}

/** The client a rate limit counts against: its address. */
export function clientOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const last = (Array.isArray(forwarded) ? forwarded.join(",") : forwarded)
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1);
    if (last) return last;
  }
  return req.socket.remoteAddress ?? "unknown";
}
