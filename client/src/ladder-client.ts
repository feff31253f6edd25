/**
 * LadderClient: every rpc of the cluster's API, for game servers and tools.
 *
 * Layers, lowest first: typed grpc-js stubs (grpc-stub.ts: one channel per address, the bearer
 * token on every call) → calls (this file: a default deadline, event ids given to SubmitScores
 * updates, retries of the calls safe to retry, retry.ts) → sessions (session.ts: read-your-writes)
 * and server streams (server-stream.ts: reconnection and resume).
 *
 *   const client = new LadderClient({ ingest: "ingest:50052", router: "router:50051", token, tls: true });
 *   const res = await client.ingest.submitScores({ updates: [...] });
 *   const top = await client.leaderboard.getTop({ board: "global", limit: 10 });
 *   for await (const p of client.admin.rebuildShards({ shardIds: ["shard-1"] })) ...
 *
 * Requests and answers are the generated protobuf-es types of @ladder/proto. A call that fails
 * rejects with grpc-js's ServiceError (`code`, `details`, `metadata`): the last attempt's, as it
 * came. `close()` closes the connections.
 */
import * as grpc from "@grpc/grpc-js";
import { create, type DescMethod, type MessageInitShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { DEFAULT_RETRY, retryPolicy, type RetryPolicy } from "./backoff.js";
import type { CallOptions, CallsOf, ServiceCalls, ServiceSet, StreamOptions } from "./calls.js";
import { assignEventIds } from "./event-ids.js";
import { createClient, withBearer, type CallOptions as StubCallOptions } from "./grpc-stub.js";
import { mayRetry, withRetries, type RetryEvent } from "./retry.js";
import { resumeByToken, ServerStream, type Resume } from "./server-stream.js";
import { Session } from "./session.js";
import { readTlsFile } from "./tls-file.js";

/** TLS: false (plaintext), true (TLS trusting the system's CAs), or TLS trusting a CA (PEM); an unreadable caFile throws a TlsFileError. */
export type TlsOption = boolean | { caFile?: string; ca?: string | Buffer };

export interface LadderClientOptions {
  /** The router's host:port: LeaderboardService and AdminService. */
  router?: string;
  /** Ingest's host:port: IngestService. */
  ingest?: string;
  /** Sent with every call as `authorization: Bearer <token>`. */
  token?: string;
  /** Default false: plaintext. */
  tls?: TlsOption;
  /** The deadline of a unary call that names none, ms, its retries included: DEFAULT_TIMEOUT_MS. Server streams have none unless a call gives one. */
  timeoutMs?: number;
  /** Retries of the calls safe to retry (retry.ts), over DEFAULT_RETRY; false: never retry. */
  retry?: Partial<RetryPolicy> | false;
  /**
   * Give each SubmitScores update without an event id a fresh one (a random UUID) before the first
   * attempt, so that the batch may be retried. Default true; false sends updates as given, and a
   * batch with an update without an id is then never retried.
   */
  assignEventIds?: boolean;
  /** Called before each retry of a call and each reconnection of a stream (logs, metrics). */
  onRetry?: (e: RetryEvent) => void;
  /** grpc-js channel options, over DEFAULT_CHANNEL_OPTIONS. */
  channelOptions?: grpc.ChannelOptions;
}

/** The default deadline of a unary call, ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * grpc-js reconnects a dropped connection after 1 s, growing to 120 s while it keeps failing; a
 * client of a cluster whose processes restart in seconds wants it back sooner: 100 ms to 2 s.
 */
export const DEFAULT_CHANNEL_OPTIONS: grpc.ChannelOptions = Object.freeze({
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 2_000,
});

type StubFn = (req: unknown, options: StubCallOptions) => Promise<unknown> | grpc.ClientReadableStream<unknown>;

export class LadderClient implements ServiceSet {
  readonly ingest: CallsOf<typeof IngestService>;
  readonly leaderboard: CallsOf<typeof LeaderboardService>;
  readonly admin: CallsOf<typeof AdminService>;
  private readonly channels: grpc.Channel[] = [];
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly giveEventIds: boolean;
  private readonly onRetry: ((e: RetryEvent) => void) | undefined;

  constructor(options: LadderClientOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = retryPolicy(options.retry, DEFAULT_RETRY);
    this.giveEventIds = options.assignEventIds ?? true;
    this.onRetry = options.onRetry;
    const credentials = channelCredentials(options.tls);
    const channelOptions = { ...DEFAULT_CHANNEL_OPTIONS, ...options.channelOptions };
    const channel = (address: string) => {
      const c = new grpc.Channel(address, credentials, channelOptions);
      this.channels.push(c);
      return c;
    };
    const router = options.router !== undefined ? channel(options.router) : undefined;
    const ingest = options.ingest !== undefined ? channel(options.ingest) : undefined;
    const bind = <S extends GenServiceMethods>(
      service: GenService<S>,
      address: string | undefined,
      ch: grpc.Channel | undefined,
      what: string,
    ) => this.calls(service, ch && createClient(service, address!, credentials, { channelOverride: ch }, options.token), what);
    this.ingest = bind(IngestService, options.ingest, ingest, "ingest");
    this.leaderboard = bind(LeaderboardService, options.router, router, "router");
    this.admin = bind(AdminService, options.router, router, "router");
  }

  /** A session: its reads see its acknowledged writes (session.ts). */
  session(): Session {
    return new Session(this);
  }

  /** Closes the connections; calls made after fail. */
  close(): void {
    for (const c of this.channels) c.close();
  }

  private calls<S extends GenServiceMethods>(service: GenService<S>, stub: object | undefined, what: string): ServiceCalls<S> {
    const out: Record<string, unknown> = {};
    for (const m of service.methods) {
      const fn = stub ? (stub as Record<string, StubFn>)[m.localName]! : undefined;
      const unavailable = () => new Error(`LadderClient: no ${what} address given (options.${what}), needed by ${m.parent.name}.${m.name}`);
      out[m.localName] =
        m.methodKind === "unary"
          ? (req: unknown, o?: CallOptions) => (fn ? this.unary(m, fn, req, o) : Promise.reject(unavailable()))
          : (req: unknown, o?: StreamOptions<never, never>) => {
              if (!fn) throw unavailable();
              return this.stream(m, fn, req, o);
            };
    }
    return out as ServiceCalls<S>;
  }

  /** One unary call: its request made once (event ids given once), then attempts while it may be retried. */
  private async unary(m: DescMethod, fn: StubFn, init: unknown, o: CallOptions = {}): Promise<unknown> {
    const request =
      m === IngestService.method.submitScores && this.giveEventIds
        ? assignEventIds(init as MessageInitShape<typeof IngestService.method.submitScores.input>)
        : create(m.input, init as MessageInitShape<typeof m.input>);
    const deadline = Date.now() + (o.timeoutMs ?? this.timeoutMs);
    const policy = o.retry === undefined ? this.retry : retryPolicy(o.retry, this.retry);
    const metadata = metadataOf(o);
    if (policy.maxAttempts === 1 || !mayRetry(m, request)) return fn(request, { deadline, signal: o.signal, metadata });
    return withRetries((attemptDeadline) => fn(request, { deadline: attemptDeadline, signal: o.signal, metadata }) as Promise<unknown>, {
      policy,
      deadline,
      method: pathOf(m),
      signal: o.signal,
      onRetry: this.onRetry,
    });
  }

  private stream(m: DescMethod, fn: StubFn, init: unknown, o: StreamOptions<never, never> = {}): ServerStream<unknown> {
    const deadline = o.timeoutMs !== undefined ? Date.now() + o.timeoutMs : Infinity;
    const resume =
      o.resume === false
        ? undefined
        : ((o.resume as Resume<unknown, unknown> | undefined) ?? (resumeByToken(m) as Resume<unknown, unknown> | undefined));
    const metadata = metadataOf(o);
    return new ServerStream({
      method: pathOf(m),
      request: create(m.input, init as MessageInitShape<typeof m.input>),
      open: (request, signal) =>
        fn(request, { deadline: Number.isFinite(deadline) ? deadline : undefined, signal, metadata }) as grpc.ClientReadableStream<unknown>,
      resume,
      policy: o.retry === undefined ? this.retry : retryPolicy(o.retry, this.retry),
      deadline,
      onReconnect: this.onRetry,
    });
  }
}

/** A call's own token as metadata (the stub then sends it instead of the client's); none without one. */
const metadataOf = (o: CallOptions) => (o.token === undefined ? undefined : withBearer(new grpc.Metadata(), o.token));

/** "leaderboard.v1.IngestService/SubmitScores". */
const pathOf = (m: DescMethod) => `${m.parent.typeName}/${m.name}`;

function channelCredentials(tls: TlsOption | undefined): grpc.ChannelCredentials {
  if (!tls) return grpc.credentials.createInsecure();
  if (tls === true) return grpc.credentials.createSsl();
  const ca = tls.ca !== undefined ? Buffer.from(tls.ca) : tls.caFile !== undefined ? readTlsFile("tls.caFile", tls.caFile) : null;
  return grpc.credentials.createSsl(ca);
}
