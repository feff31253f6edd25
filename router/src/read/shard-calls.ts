/**
 * The fan-out of the read path: calls to shards under the per-shard timeout and the caller's
 * deadline, and what the queries need to know of the shards (ShardReads), so that the exact logic
 * (queries.ts, ranks.ts, select.ts, cursor-pages.ts) reads real shards through a ShardPool
 * (shard-pool.ts) and in-process fake shards in unit tests (queries.test.ts) alike.
 *
 * Refusals, the rule that keeps every answer exact: a call that throws a LadderError (a shard
 * not serving, or built for another placement: store/src/reader.ts) fails with it unchanged; any
 * other error (a connection refused, a reply that could not be read) fails with UNAVAILABLE
 * naming the shard, a connection's failure in ladder's words (shardUnreachable), not the Redis
 * client's; a shard that does not answer within the per-shard timeout fails with
 * UNAVAILABLE; a caller's deadline passed fails with DEADLINE_EXCEEDED. One shard failing fails
 * the whole fan-out: a count summed without one shard would be silently wrong.
 */
import { Code, LadderError, unavailable, deadlineExceeded } from "@ladder/model/errors";
import { secondsSince } from "@ladder/platform/metrics";
import type { ShardReader } from "@ladder/store";
import { Deadlines } from "./deadlines.js";
import { codeName, routerMetrics } from "../metrics.js";

/** The reads a query asks of one shard (store/src/reader.ts says what each returns). */
export type ShardStore = Pick<
  ShardReader,
  | "shardId"
  | "top"
  | "window"
  | "standing"
  | "entry"
  | "ranks"
  | "distinct"
  | "ties"
  | "after"
  | "histogram"
  | "histogramAt"
  | "audit"
  | "playerData"
  | "floors"
  | "indexProbe"
  | "atOnce"
>;

/** Where a query reads: the live boards, or an audit view (see AdminService.RebuildShards). */
export interface Scope<S extends ShardStore = ShardReader> {
  ownerOf(playerId: string): S;
  /** The player's slot (its records' partition) by the placement the scope reads by. */
  slotOf(playerId: string): number;
  readonly stores: readonly S[];
  /** Every store but `owner` (a store of this scope). */
  othersOf(owner: S): readonly S[];
}

/** What the queries ask of the shards: a scope to read and calls under deadlines (a ShardPool, or fakes in tests). */
export interface ShardReads {
  /** The live boards ("" view) or audit view `view`, by the routing table in force. */
  scope(view?: string): Scope<ShardStore>;
  waitUntil<T>(work: Promise<T>, deadlineMs: number): Promise<T>;
  fanOut<S extends ShardStore, T>(stores: readonly S[], fn: (store: S) => Promise<T>, deadlineMs?: number): Promise<T[]>;
  call<S extends ShardStore, T>(store: S, fn: (store: S) => Promise<T>, deadlineMs?: number): Promise<T>;
}

export class ShardCalls {
  /** `timeoutMs`: the longest wait for one shard call; `deadlines` may be shared by several (they share one timer). */
  constructor(
    private readonly timeoutMs: number,
    private readonly deadlines = new Deadlines(),
  ) {}

  /** `work`, unless the caller's deadline (ms since epoch; Infinity: none) passes first: then DEADLINE_EXCEEDED. */
  waitUntil<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
    if (deadlineMs === Infinity) return work;
    return this.deadlines.within(work, deadlineMs - Date.now(), () => deadlineExceeded("the deadline passed while the shards were read"));
  }

  /** Runs `fn` on every one of `stores` at once; all must answer before the deadline. */
  async fanOut<S extends { shardId: string }, T>(stores: readonly S[], fn: (store: S) => Promise<T>, deadlineMs = Infinity): Promise<T[]> {
    return Promise.all(stores.map((s) => this.call(s, fn, deadlineMs)));
  }

  /** Runs `fn` on one shard under the per-shard timeout and the caller's deadline; times it by outcome (metrics.ts). */
  async call<S extends { shardId: string }, T>(store: S, fn: (store: S) => Promise<T>, deadlineMs = Infinity): Promise<T> {
    const budget = Math.min(this.timeoutMs, deadlineMs - Date.now());
    if (budget <= 0) throw deadlineExceeded("deadline passed before the shards were asked");
    const startedAt = performance.now();
    let code: number = Code.OK;
    try {
      return await this.deadlines.within(fn(store), budget, () => noAnswer(store.shardId, budget));
    } catch (err) {
      code = err instanceof LadderError ? err.code : Code.UNAVAILABLE;
      if (err instanceof LadderError) throw err;
      throw shardUnreachable(store.shardId, err);
    } finally {
      routerMetrics().shardCallOf(store.shardId, codeName(code)).observe(secondsSince(startedAt));
    }
  }
}

/** The refusals of calls that ran out of time (isNoAnswer). */
const noAnswers = new WeakSet<LadderError>();

function noAnswer(shardId: string, budgetMs: number): LadderError {
  const err = unavailable(`${shardId}: no answer within ${Math.round(budgetMs)} ms`);
  noAnswers.add(err);
  return err;
}

/** Whether `err` is a call's refusal for running out of time (rather than one that says why the shard did not answer). */
export function isNoAnswer(err: unknown): boolean {
  return err instanceof LadderError && noAnswers.has(err);
}

/** The Redis client's words for a connection that failed or is not made (ioredis), and ladder's for them. */
const CONNECTION_FAILURES: ReadonlyArray<[RegExp, string]> = [
  [/max retries per request|Connection is closed|ECONNRESET|EPIPE/i, "connection lost"],
  [/enableOfflineQueue|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|connect ETIMEDOUT/i, "not connected"],
  [/Command timed out/i, "no answer in time"],
];

/**
 * UNAVAILABLE (retriable) for an error other than a shard's own refusal: a connection's failure as
 * `<shard>: its Redis is not reachable (<why>), retry`; anything else (a reply error of Redis, say)
 * with its message, naming the shard.
 */
export function shardUnreachable(shardId: string, err: unknown): LadderError {
  const message = err instanceof Error ? err.message : String(err);
  const why = CONNECTION_FAILURES.find(([pattern]) => pattern.test(message))?.[1];
  return unavailable(why ? `${shardId}: its Redis is not reachable (${why}), retry` : `${shardId}: ${message}`, err);
}
