/**
 * A server stream of the router relayed to a browser as Server-Sent Events.
 *
 * Each message becomes one event: `id:` its resume token, `event:` its kind, `data:` its proto3
 * JSON on one line. A browser's EventSource that loses the connection reconnects by itself and
 * sends the last id it received as `Last-Event-ID`, which the watch endpoints (watch.ts) pass to
 * the router as the resume token: the stream continues its sequence (docs/push.md).
 *
 * STATUS. The response's headers wait for the stream's first message or its failure, at most
 * COMMIT_MS: a request the router refuses at once (a bad parameter, an unknown board, a missing
 * token, a malformed resume token) is answered with that HTTP status and JSON body, as the JSON
 * endpoints answer, and an EventSource does not retry it. A failure after the headers (the router
 * went away for longer than the client library's reconnections last) is sent as an event
 * `failure` with the same JSON body, and the response ends: an EventSource reconnects (with
 * Last-Event-ID) unless the page closes it; the dashboard closes it on anything but UNAVAILABLE.
 *
 * BACK-PRESSURE. An event is written only once the one before it has left the gateway's buffer
 * (the response's `drain`); while a client does not take what was sent, the relay stops reading
 * the router's stream, whose messages then wait in gRPC's flow control instead of the gateway's
 * memory. A client that has not taken what was sent within `stallMs` (the connection's buffers
 * full all that time: a tab in the background of a frozen browser, a client that never reads) is
 * cut: its response destroyed, the router's call cancelled, its stream slot freed. What one stream
 * holds in the gateway is thus bounded by one event beyond the socket's high-water mark. A browser
 * that is still there reconnects with Last-Event-ID and continues the sequence.
 *
 * A comment line every KEEP_ALIVE_MS keeps proxies from closing a quiet stream (skipped while the
 * client is behind). The stream is cancelled (the router's call too) when the caller goes away.
 */
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import type { ServerStream } from "@ladder/client";
import { toHttpFailure } from "./http-errors.js";

/** Longest wait for a stream's first message or failure before the headers are sent, ms. */
export const COMMIT_MS = 1000;
const KEEP_ALIVE_MS = 15_000;

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no", // nginx: pass events on as they come
});

export interface Relay<M> {
  /** The event's name: "top", "player". */
  event: string;
  /** The message's resume token (the event's id). */
  idOf(m: M): string;
  /** The message as JSON. */
  dataOf(m: M): unknown;
  /** Headers every answer carries (CORS). */
  headers: Record<string, string>;
  /** How long the client may leave what was sent untaken before the stream is cut, ms. */
  stallMs: number;
}

/** Waits until `res` has drained; false when `ms` passed first (or the response closed). */
async function drained(res: ServerResponse, ms: number): Promise<boolean> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    await Promise.race([
      once(res, "drain", { signal: ac.signal }),
      once(res, "close", { signal: ac.signal }).then(() => Promise.reject(new Error("closed"))),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

/**
 * Relays `stream` to `res` until it ends, fails or the caller leaves. Rejects with the stream's
 * failure when it came before the headers (the caller answers it as any error); resolves otherwise.
 */
export async function relay<M>(res: ServerResponse, stream: ServerStream<M>, r: Relay<M>): Promise<void> {
  let committed = false;
  let keepAlive: NodeJS.Timeout | undefined;
  const commit = () => {
    if (committed || res.destroyed) return;
    committed = true;
    res.writeHead(200, { ...r.headers, ...SSE_HEADERS });
    res.flushHeaders();
    keepAlive = setInterval(() => res.writableNeedDrain || res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
  };
  const timer = setTimeout(commit, COMMIT_MS);
  let left = false;
  const leave = () => {
    left = true;
    stream.cancel();
  };
  res.once("close", leave); // before the end: the caller went away
  try {
    for await (const m of stream) {
      commit();
      if (res.write(`id: ${r.idOf(m)}\nevent: ${r.event}\ndata: ${JSON.stringify(r.dataOf(m))}\n\n`)) continue;
      if (await drained(res, r.stallMs)) continue;
      left = true; // cut: the client took nothing for stallMs
      stream.cancel();
      res.destroy();
      return;
    }
  } catch (err) {
    if (left) return;
    if (!committed) throw err;
    res.write(`event: failure\ndata: ${JSON.stringify(toHttpFailure(err).body)}\n\n`);
  } finally {
    clearTimeout(timer);
    clearInterval(keepAlive);
    res.off("close", leave);
    if (committed) res.end();
  }
}
