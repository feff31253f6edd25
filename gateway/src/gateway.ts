/**
 * The browser gateway: an HTTP server in front of the router for game web clients and the
 * dashboard (docs/gateway.md). It answers GET only — reads as JSON (reads.ts, cluster-view.ts),
 * live streams as Server-Sent Events (watch.ts) and the dashboard's files (static-files.ts) — and
 * never exposes a write or an admin rpc. Every API request:
 *
 *   1. CORS: headers for an allowed origin; preflights answered (cors.ts);
 *   2. a token from the caller's bucket, else 429 with Retry-After (rate-limit.ts); a stream also
 *      holds one of the caller's stream slots while it is open;
 *   3. the caller's token forwarded to the router, which decides (caller.ts);
 *   4. any failure converted once into a status and a JSON body (http-errors.ts).
 *
 * `/healthz` answers 200 while the gateway runs (it does not ask the router).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LadderClient } from "@ladder/client";
import { Code } from "@ladder/model/errors";
import type { Logger } from "@ladder/platform/logger";
import { callerToken, clientOf } from "./caller.js";
import { ClusterView } from "./cluster-view.js";
import { corsHeaders, isPreflight, preflight } from "./cors.js";
import { refuse, toHttpFailure } from "./http-errors.js";
import { queryOf } from "./params.js";
import { RateLimiter, type RateLimits } from "./rate-limit.js";
import { reads, type Read, type ReadContext } from "./reads.js";
import { loadStaticFiles, PUBLIC_DIR, type StaticFile } from "./static-files.js";
import { watches, type Watch } from "./watch.js";

export interface GatewayOptions {
  /** host:port; port 0 picks a free one. */
  listen: string;
  /** The router's client; calls carry each caller's token. */
  client: LadderClient;
  /** The gateway's own token (monitor role), for the board list and the shards' status only. */
  monitorToken: string | undefined;
  corsOrigins: readonly string[];
  limits: RateLimits;
  trustProxy: boolean;
  log: Logger;
  /** How long a live stream may leave what was sent untaken before it is cut, ms; default 10 s. */
  streamStallMs?: number;
  /** The dashboard's files; default gateway/public. */
  staticDir?: string;
}

export interface Gateway {
  readonly port: number;
  /** http://host:port/ */
  readonly url: string;
  /** Stops listening and ends every open stream (browsers reconnect with Last-Event-ID). */
  close(): Promise<void>;
}

type Route = { read: Read } | { watch: Watch };

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };
const SWEEP_MS = 60_000;
const DEFAULT_STALL_MS = 10_000;

export async function startGateway(o: GatewayOptions): Promise<Gateway> {
  const handler = new Handler(o);
  const server = createServer((req, res) => {
    const startedAt = performance.now();
    void handler.handle(req, res).finally(() => {
      o.log.debug(
        { method: req.method, path: req.url?.split("?")[0], status: res.statusCode, ms: Math.round(performance.now() - startedAt) },
        "request",
      );
    });
  });
  const { host, port } = hostPort(o.listen);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const sweep = setInterval(() => handler.limiter.sweep(), SWEEP_MS).unref();
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/`,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        server.close(() => resolve());
        server.closeAllConnections(); // open streams end; their browsers reconnect elsewhere or later
      }),
  };
}

/** One request at a time, start to end: the steps of this file's head comment. */
class Handler {
  readonly limiter: RateLimiter;
  private readonly files: ReadonlyMap<string, StaticFile>;
  private readonly route: (path: string) => { found: Route; board: string };
  private readonly view: ClusterView;

  constructor(private readonly o: GatewayOptions) {
    this.files = loadStaticFiles(o.staticDir ?? PUBLIC_DIR);
    this.limiter = new RateLimiter(o.limits);
    this.view = new ClusterView(o.client, o.monitorToken);
    this.route = router(o.client, this.view, o.streamStallMs ?? DEFAULT_STALL_MS);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://gateway");
    const cors = corsHeaders(req.headers.origin, this.o.corsOrigins);
    try {
      if (isPreflight(req)) {
        const p = preflight(req, this.o.corsOrigins);
        res.writeHead(p.status, p.headers).end();
      } else if (req.method !== "GET") {
        throw refuse(Code.UNIMPLEMENTED, `${req.method} is not served: the gateway answers reads (GET) only`, {
          status: 405,
          headers: { Allow: "GET, OPTIONS" },
        });
      } else if (url.pathname === "/healthz") sendJson(res, cors, { status: "ok" });
      else if (url.pathname.startsWith("/api/")) await this.api(req, res, url, cors);
      else this.sendFile(res, url.pathname);
    } catch (err) {
      const f = toHttpFailure(err);
      if (f.internal) this.o.log.error({ err: f.internal, path: url.pathname }, "request failed");
      if (res.headersSent) res.destroy();
      else res.writeHead(f.status, { ...cors, ...f.headers, ...JSON_HEADERS }).end(JSON.stringify(f.body));
    }
  }

  /** An API request: the client's token bucket, then its read or its stream (holding a stream slot). */
  private async api(req: IncomingMessage, res: ServerResponse, url: URL, cors: Record<string, string>): Promise<void> {
    const { rate, burst, streams } = this.o.limits;
    const client = clientOf(req, this.o.trustProxy);
    const wait = this.limiter.take(client);
    if (wait > 0)
      throw refuse(Code.RESOURCE_EXHAUSTED, `rate limit: ${rate} requests a second, ${burst} at once`, {
        headers: { "Retry-After": String(wait) },
      });
    const { found, board } = this.route(url.pathname);
    const ac = new AbortController();
    res.once("close", () => ac.abort());
    const search = queryOf(url);
    const ctx: ReadContext = { board, search, token: callerToken(req, search), signal: ac.signal };
    if ("read" in found) {
      const answer = await found.read(ctx);
      if (board) this.view.readAnswered(board);
      return sendJson(res, cors, answer);
    }
    const release = this.limiter.openStream(client);
    if (!release) throw refuse(Code.RESOURCE_EXHAUSTED, `stream limit: ${streams} open streams per client`);
    try {
      await found.watch({ ...ctx, req, res, headers: cors });
    } finally {
      release();
    }
  }

  private sendFile(res: ServerResponse, path: string): void {
    const file = this.files.get(path);
    if (!file) throw refuse(Code.NOT_FOUND, `no such page: ${path}`);
    res.writeHead(200, file.headers).end(file.body);
  }
}

function sendJson(res: ServerResponse, cors: Record<string, string>, body: unknown): void {
  res.writeHead(200, { ...cors, ...JSON_HEADERS }).end(JSON.stringify(body));
}

/** The endpoint of an API path and the board it names; NOT_FOUND for no endpoint. */
function router(client: LadderClient, view: ClusterView, stallMs: number): (path: string) => { found: Route; board: string } {
  const r = reads(client);
  const w = watches(client, stallMs);
  const fixed: Record<string, Route> = {
    "/api/boards": { read: (c) => view.boards(c) },
    "/api/status": { read: (c) => view.status(c) },
    "/api/trends": { read: (c) => view.trends(c) },
    "/api/standing": { read: r.standing },
  };
  return (path) => {
    if (fixed[path]) return { found: fixed[path]!, board: "" };
    const m = /^\/api\/boards\/([^/]+)\/(?:(periods|top|rank|around|histogram|league|team)|watch\/(top|player))$/.exec(path);
    if (!m) throw refuse(Code.NOT_FOUND, `no such endpoint: ${path}`);
    const board = decoded(m[1]!);
    return { found: m[2] ? { read: r.board[m[2]]! } : { watch: w[m[3]!]! }, board };
  };
}

/** A path segment decoded; INVALID_ARGUMENT for a malformed escape. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw refuse(Code.INVALID_ARGUMENT, `"${segment}" is not a board name (a malformed %-escape)`);
  }
}

function hostPort(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(":");
  return { host: listen.slice(0, i).replace(/^\[(.*)\]$/, "$1"), port: Number(listen.slice(i + 1)) };
}
