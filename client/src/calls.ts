/**
 * The types of the client's calls, typed from the generated service descriptors: a unary rpc is a
 * function answering a promise, a server-streaming one a ServerStream. LadderClient
 * (ladder-client.ts) makes them and Session (session.ts) wraps them; both import them from here,
 * so neither imports the other's file for its types.
 */
import type { MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { RetryPolicy } from "./backoff.js";
import type { Resume, ServerStream } from "./server-stream.js";

/** Options of one unary call. */
export interface CallOptions {
  /** The call's deadline from now, ms, its retries included (default: the client's timeoutMs). */
  timeoutMs?: number;
  /** This call's retries, over the client's; false: no retry. Calls not safe to retry never are. */
  retry?: Partial<RetryPolicy> | false;
  /** Aborting it cancels the call and its retries (CANCELLED, or the signal's reason during a pause). */
  signal?: AbortSignal;
  /** This call's bearer token, sent instead of the client's (a gateway forwarding its callers' tokens). */
  token?: string;
}

/** Options of one server stream. */
export interface StreamOptions<Req, Res> extends CallOptions {
  /** The stream's deadline from now, ms (default: none). */
  timeoutMs?: number;
  /** How it continues after a transport failure (server-stream.ts); default resumeByToken; false: it does not. */
  resume?: Resume<Req, Res> | false;
}

type Unary<M extends GenServiceMethods[string]> = (
  req: MessageInitShape<M["input"]>,
  options?: CallOptions,
) => Promise<MessageShape<M["output"]>>;
type Streaming<M extends GenServiceMethods[string]> = (
  req: MessageInitShape<M["input"]>,
  options?: StreamOptions<MessageShape<M["input"]>, MessageShape<M["output"]>>,
) => ServerStream<MessageShape<M["output"]>>;

/** The calls of a service, typed from its descriptor. */
export type ServiceCalls<S extends GenServiceMethods> = {
  [K in keyof S]: S[K]["methodKind"] extends "unary" ? Unary<S[K]> : Streaming<S[K]>;
};
/** The calls of a generated service descriptor: CallsOf<typeof LeaderboardService>. */
export type CallsOf<D> = D extends GenService<infer S> ? ServiceCalls<S> : never;

/** The calls of the cluster's three services: what a LadderClient and a Session both offer. */
export interface ServiceSet {
  readonly ingest: CallsOf<typeof IngestService>;
  readonly leaderboard: CallsOf<typeof LeaderboardService>;
  readonly admin: CallsOf<typeof AdminService>;
}
