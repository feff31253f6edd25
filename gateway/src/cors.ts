/**
 * CORS for game web clients (LADDER_GATEWAY_CORS_ORIGINS). A request from an allowed origin gets
 * `Access-Control-Allow-Origin` (that origin, or `*` when any is allowed) and may read
 * `Retry-After`; one from another origin gets no CORS header, so the browser keeps the answer from
 * the page (the gateway answers only reads: nothing is done on its behalf that a plain page load
 * could not do). The dashboard is served by the gateway itself: same origin, no CORS needed.
 *
 * Preflights (OPTIONS with Access-Control-Request-Method) are answered 204 for an allowed origin
 * asking for GET, allowing the headers a client sends (Authorization, Last-Event-ID), cached for
 * 10 minutes; 403 otherwise.
 */
import type { IncomingMessage } from "node:http";

const ALLOW_HEADERS = "Authorization, Last-Event-ID";
const MAX_AGE_S = 600;

/** The CORS headers of an answer to a request from `origin`; none when it is not allowed (or absent). */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  const vary: Record<string, string> = allowed.length > 0 && !allowed.includes("*") ? { Vary: "Origin" } : {};
  if (origin === undefined) return vary;
  if (allowed.includes("*")) return { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "Retry-After" };
  if (allowed.includes(origin)) return { ...vary, "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": "Retry-After" };
  return vary;
}

/** Whether a request is a CORS preflight. */
export const isPreflight = (req: IncomingMessage) => req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;

/** The answer to a preflight: its status and headers. */
export function preflight(req: IncomingMessage, allowed: readonly string[]): { status: number; headers: Record<string, string> } {
  const headers = corsHeaders(req.headers.origin, allowed);
  const ok = headers["Access-Control-Allow-Origin"] !== undefined && req.headers["access-control-request-method"] === "GET";
  if (!ok) return { status: 403, headers };
  return {
    status: 204,
    headers: {
      ...headers,
      "Access-Control-Allow-Methods": "GET",
      "Access-Control-Allow-Headers": ALLOW_HEADERS,
      "Access-Control-Max-Age": String(MAX_AGE_S),
    },
  };
}
