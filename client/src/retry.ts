/**
 * Which calls the client retries, on which errors, and the retry loop.
 *
 * A call is retried only when doing it twice is harmless:
 *   - reads (every LeaderboardService rpc; AdminService's GetBoard, ListBoards, ListCloses, ListRebuilds,
 *     GetClusterStatus, GetPlacement, ListModerationActions, ExportPlayerData): always;
 *   - IngestService.JoinTournament: always (a member joining again changes nothing and is answered as
 *     the first join was);
 *   - IngestService.SubmitScores: when every update carries an event id. The shards apply an
 *     (event id, board, player) once within the dedup window (docs/guarantees.md), so a batch
 *     resent after an answer that never came counts once. LadderClient gives each update without
 *     an id a fresh one before the first attempt (event-ids.ts), so every retry resends the same ids;
 *   - nothing else: DeletePlayer (a second tombstone would also erase scores written in between),
 *     CreateBoard, UpdateBoard, DeleteBoard (a second one may act on a board defined again since),
 *     and any rpc this table does not know. RebuildShards and Reshard are streams (server-stream.ts)
 *     that start work: never reopened.
 *
 * Only UNAVAILABLE (the server or the path to it failed; the cluster's "retry" answer),
 * DEADLINE_EXCEEDED (an attempt ran out of its time while the call's deadline leaves more) and
 * RESOURCE_EXHAUSTED with a `retry-after-ms` trailer (a write quota spent, or a shard behind:
 * nothing was done, and the server says when to come back; the pause is then at least that long)
 * are retried. Every other code is the answer: INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,
 * PERMISSION_DENIED, UNAUTHENTICATED, ALREADY_EXISTS, ABORTED, CANCELLED, RESOURCE_EXHAUSTED
 * without the trailer (a limit that waiting does not lift)... are never retried.
 */
import { status } from "@grpc/grpc-js";
import type { DescMethod } from "@bufbuild/protobuf";
import { backoffMs, pause, type RetryPolicy } from "./backoff.js";
import { everyUpdateHasEventId } from "./event-ids.js";

/** How a method may be retried: "read" always, "event-ids" when every update has an event id, "never". */
export type RetrySafety = "read" | "event-ids" | "never";

const SAFETY: Readonly<Record<string, RetrySafety>> = Object.freeze({
  "leaderboard.v1.LeaderboardService": "read", // every rpc of it: the service answers reads only
  "leaderboard.v1.IngestService.SubmitScores": "event-ids",
  "leaderboard.v1.IngestService.JoinTournament": "read", // idempotent: a repeated join is answered as the first
  "leaderboard.v1.AdminService.GetBoard": "read",
  "leaderboard.v1.AdminService.ListBoards": "read",
  "leaderboard.v1.AdminService.ListRebuilds": "read",
  "leaderboard.v1.AdminService.ListCloses": "read",
  "leaderboard.v1.AdminService.GetClusterStatus": "read",
  "leaderboard.v1.AdminService.GetPlacement": "read",
  "leaderboard.v1.AdminService.ListModerationActions": "read",
  "leaderboard.v1.AdminService.ExportPlayerData": "read",
});

export function retrySafety(m: DescMethod): RetrySafety {
  if (m.methodKind !== "unary") return "never";
  return SAFETY[`${m.parent.typeName}.${m.name}`] ?? SAFETY[m.parent.typeName] ?? "never";
}

/** Whether `request` of method `m` may be sent again after a failed attempt. */
export function mayRetry(m: DescMethod, request: unknown): boolean {
  const safety = retrySafety(m);
  return safety === "read" || (safety === "event-ids" && everyUpdateHasEventId(request as { updates: { eventId: string }[] }));
}

/** The gRPC codes a call safe to retry is retried on. */
export const RETRIED_CODES: ReadonlySet<status> = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);

/** The gRPC status code of an error; undefined for an error that is not a gRPC status. */
export function codeOf(err: unknown): status | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

export function isRetriedError(err: unknown): boolean {
  const code = codeOf(err);
  return (code !== undefined && RETRIED_CODES.has(code)) || retryAfterMs(err) !== undefined;
}

/** The `retry-after-ms` trailer of a RESOURCE_EXHAUSTED answer (when to come back); undefined without one. */
export function retryAfterMs(err: unknown): number | undefined {
  if (codeOf(err) !== status.RESOURCE_EXHAUSTED) return undefined;
  const metadata = (err as { metadata?: { get?: (key: string) => unknown[] } }).metadata;
  const [value] = metadata?.get?.("retry-after-ms") ?? [];
  const ms = Number(value);
  return value !== undefined && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** What onRetry hooks are told before a retry (or a stream's reconnection). */
export interface RetryEvent {
  /** "leaderboard.v1.IngestService/SubmitScores". */
  readonly method: string;
  /** The attempt that failed, 1-based. */
  readonly attempt: number;
  readonly error: unknown;
  /** The pause before the next attempt. */
  readonly delayMs: number;
}

export interface RetryLoop {
  policy: RetryPolicy;
  /** The call's deadline, ms since the epoch (Infinity: none). */
  deadline: number;
  method: string;
  signal?: AbortSignal;
  onRetry?: (e: RetryEvent) => void;
  random?: () => number;
}

/**
 * Runs `attempt` (given its own deadline) until it succeeds, fails with a code not retried, has
 * used `policy.maxAttempts`, or the next pause would end at or past the call's deadline: then it
 * rejects with the last attempt's error, as it came.
 */
export async function withRetries<T>(attempt: (deadline: number) => Promise<T>, o: RetryLoop): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(Math.min(o.deadline, Date.now() + o.policy.attemptTimeoutMs));
    } catch (err) {
      if (n >= o.policy.maxAttempts || !isRetriedError(err) || o.signal?.aborted) throw err;
      const delayMs = Math.max(backoffMs(o.policy, n, o.random), retryAfterMs(err) ?? 0);
      if (Date.now() + delayMs >= o.deadline) throw err;
      o.onRetry?.({ method: o.method, attempt: n, error: err, delayMs });
      await pause(delayMs, o.signal);
    }
  }
}
