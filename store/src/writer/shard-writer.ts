/**
 * ShardWriter: the write side of one shard's Redis. The shard node applies the log through
 * it and keeps the shard's heartbeat; rebuilds replay the log through it into a spare
 * database or an audit view. Every call is one script round trip.
 *
 * APPLY CALLS ARE SHARED. The partitions of a shard are applied concurrently (apply-loop.ts), and
 * when the log is quiet each brings a few records: one script call each would cost Redis about
 * 80 µs per call whatever it holds (the request, the script's setup; store/bench/apply-bench.ts
 * with --chunk 5 against 500: 73 against 26 µs per record). So the batches asked of apply() in one
 * turn of the event loop go to Redis together, several partitions per call (apply-events.lua),
 * up to MAX_CALL_EVENTS events a call (a call holds Redis while it runs: one partition's full batch
 * goes alone) and never one partition twice in a call (its batches are applied in order, each
 * after the one before answered). Each caller gets its own partition's answer; a call that fails
 * fails each of its callers.
 */
import type { Redis } from "ioredis";
import { atEndOfTurn } from "@ladder/platform/end-of-turn";
import { appliedOffsetsOf, keyLayout, type KeyLayout } from "../keys.js";
import { recordCountBucketsOf } from "../identity.js";
import { ApplyStatus, HeartbeatStatus, withWriteScripts, type ApplyReply, type WriteScripts } from "../scripts.js";
import { applyCall, type PartitionEvents } from "./pack-event.js";
import type { PreparedEvent } from "./prepared-event.js";

export type { PreparedEvent, PreparedWindows } from "./prepared-event.js";

export interface ApplyResult {
  /** False when the events did not follow the stored offset: rewind to lastOffset + 1. */
  inSequence: boolean;
  /** Set when the shard was built from something else (nothing applied): what it was built from. */
  drift?: string;
  applied: number;
  /** Records at or below the stored offset (already applied). */
  skipped: number;
  /** Records whose event id was applied already within the dedup window. */
  duplicates: number;
  /** The partition's last applied offset after the call (-1 if none ever). */
  lastOffset: bigint;
}

export interface HeartbeatResult {
  status: HeartbeatStatus;
  /** Records behind the targets, over all the node's partitions. */
  lag: number;
  /** Partitions whose stored offset fell below what was applied (data lost), with the stored offset. */
  lost: Map<number, bigint>;
  /** On DRIFT: what the shard was built from instead. */
  builtFrom?: string;
  /** The Redis's clock (TIME) when the script ran, ms since epoch (0 on DRIFT). */
  redisNowMs: number;
}

export interface HeartbeatRequest {
  ttlMs: number;
  /** serve: set the stamp; catch-up: set it only once every partition reached its target; withdraw: stop serving. */
  mode: "serve" | "catch-up" | "withdraw";
  /** Why not serving (catch-up, withdraw): readers are told. */
  reason: string;
  partitions: ReadonlyArray<{ partition: number; known: bigint; target: bigint }>;
  /**
   * While serving: as of when (ms on the Redis's clock) the shard held every record of the log, as of
   * when the targets were the log's end (the shard is current as of then once it holds them), and
   * how long after the as-of it may be served (heartbeat.lua). Undefined: no bound.
   */
  current?: { asOfMs: number; targetsAsOfMs?: number; boundMs: number };
}

/** What a shard's Redis holds before a writer starts on it. */
export interface ShardState {
  /** Its built-from record (identity.ts), if any. */
  builtFrom: string | undefined;
  /** True when any partition has an applied offset (the shard holds data). */
  hasData: boolean;
}

/** Reads what the shard's Redis under `keyPrefix` holds (one round trip). */
export async function inspectShard(redis: Redis, keyPrefix: string): Promise<ShardState> {
  const keys = keyLayout(keyPrefix);
  const [builtFrom, offsets] = await Promise.all([redis.get(keys.builtFrom), redis.exists(keys.offsets)]);
  return { builtFrom: builtFrom ?? undefined, hasData: offsets > 0 };
}

export interface ShardWriterOptions {
  shardId: string;
  /** The shard's stamp (identity.ts): the heartbeat's value while serving. */
  stamp: string;
  /** The built-from value this writer's data comes from (identity.ts): checked by every write. */
  builtFrom: string;
  redis: Redis;
  keyPrefix: string;
  /** How long applied event ids are remembered (0 = never). */
  dedupWindowMs: number;
}

/** The most events one shared apply call holds (the apply loop's default chunk). */
export const MAX_CALL_EVENTS = 500;

interface Waiting extends PartitionEvents {
  resolve(result: ApplyResult): void;
  reject(err: unknown): void;
}

export class ShardWriter {
  readonly shardId: string;
  readonly stamp: string;
  readonly builtFrom: string;
  readonly keys: KeyLayout;
  private readonly redis: Redis & WriteScripts;
  private readonly dedupWindowMs: number;
  /** Hashes per slot of the counts of records: the stamp's (identity.ts). */
  private readonly recordCountBuckets: number;
  /** The batches asked in this turn, sent at its end. */
  private waiting: Waiting[] = [];

  constructor(o: ShardWriterOptions) {
    this.shardId = o.shardId;
    this.stamp = o.stamp;
    this.builtFrom = o.builtFrom;
    this.keys = keyLayout(o.keyPrefix);
    this.redis = withWriteScripts(o.redis);
    this.dedupWindowMs = o.dedupWindowMs;
    this.recordCountBuckets = recordCountBucketsOf(o.stamp);
  }

  /**
   * Applies events of one partition, in offset order; already-applied ones are skipped.
   * Stops at the first event that does not follow the stored offset (inSequence false).
   * Sent at the end of this turn, with the other partitions' batches asked in it (see above).
   */
  apply(partition: number, events: readonly PreparedEvent[]): Promise<ApplyResult> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ partition, events, resolve, reject }) === 1) atEndOfTurn(this.flush);
    });
  }

  private readonly flush = (): void => {
    const waiting = this.waiting;
    this.waiting = [];
    let call: Waiting[] = [];
    let events = 0;
    for (const w of waiting) {
      if (call.length && (events + w.events.length > MAX_CALL_EVENTS || call.some((c) => c.partition === w.partition))) {
        void this.applyTogether(call);
        call = [];
        events = 0;
      }
      call.push(w);
      events += w.events.length;
    }
    if (call.length) void this.applyTogether(call);
  };

  /** One script call for `calls`, each answered with its partition's result. */
  private async applyTogether(calls: readonly Waiting[]): Promise<void> {
    let replies: ApplyReply[];
    try {
      const call = applyCall({
        keys: this.keys,
        groups: calls,
        dedupWindowMs: this.dedupWindowMs,
        builtFrom: this.builtFrom,
        recordCountBuckets: this.recordCountBuckets,
      });
      replies = await this.redis.ladderApply(call.keys.length, call.keys, call.args); // arrays: ioredis flattens them once
    } catch (err) {
      for (const c of calls) c.reject(err);
      return;
    }
    calls.forEach((c, i) => {
      const [status, applied, skipped, last, duplicates, builtFrom] = replies[i]!;
      if (status === ApplyStatus.WRONG_TYPE)
        return c.reject(
          new Error(
            `${this.shardId}: cannot apply partition ${c.partition}: ${builtFrom}, not a sorted set (nothing was applied; fix or delete the key)`,
          ),
        );
      const result: ApplyResult = { inSequence: status === ApplyStatus.OK, applied, skipped, duplicates, lastOffset: BigInt(last) };
      if (status === ApplyStatus.DRIFT) result.drift = builtFrom ?? "";
      c.resolve(result);
    });
  }

  /** The last applied offset of every partition this Redis has seen. */
  async appliedOffsets(): Promise<Map<number, bigint>> {
    const raw = await this.redis.hgetall(this.keys.offsets);
    return new Map(Object.entries(raw).map(([p, o]) => [Number(p), BigInt(o)]));
  }

  /** The last applied offset of each of `partitions` (-1 where none). */
  appliedOffsetsOf(partitions: readonly number[]): Promise<bigint[]> {
    return appliedOffsetsOf(this.redis, this.keys.offsets, partitions);
  }

  /** What this Redis says its data was built from (undefined: nothing recorded). */
  async readBuiltFrom(): Promise<string | undefined> {
    return (await this.redis.get(this.keys.builtFrom)) ?? undefined;
  }

  /** Records this writer's built-from value (a fresh shard, or one filled before shards recorded it). */
  async recordBuiltFrom(): Promise<void> {
    await this.redis.set(this.keys.builtFrom, this.builtFrom);
  }

  /** Marks the keys served for `ttlMs` without conditions, staleness bound included (audit views, benchmarks). */
  async markServing(ttlMs: number): Promise<void> {
    await Promise.all([this.redis.set(this.keys.heartbeat, this.stamp, "PX", ttlMs), this.redis.del(this.keys.current)]);
  }

  /** Runs heartbeat.lua: sets or withdraws the heartbeat, reports lag, lost data and drift. */
  async heartbeat(o: HeartbeatRequest): Promise<HeartbeatResult> {
    const ms = (v: number | undefined) => (v === undefined ? "" : String(Math.max(0, Math.floor(v))));
    const c = o.current;
    const args: Array<string | number> = [this.stamp, this.builtFrom, o.ttlMs, o.mode, o.reason];
    args.push(ms(c?.asOfMs), c ? ms(c.targetsAsOfMs) : "", c ? ms(c.boundMs) : 0, o.partitions.length);
    for (const p of o.partitions) args.push(p.partition, p.known.toString(), p.target.toString());
    const reply = await this.redis.ladderHeartbeat(this.keys.heartbeat, this.keys.offsets, this.keys.builtFrom, ...args);
    const status = Number(reply[0]) as HeartbeatStatus;
    if (status === HeartbeatStatus.DRIFT) return { status, lag: 0, lost: new Map(), builtFrom: String(reply[2] ?? ""), redisNowMs: 0 };
    const lost = new Map<number, bigint>();
    for (let i = 3; i + 1 < reply.length; i += 2) lost.set(Number(reply[i]), BigInt(String(reply[i + 1])));
    return { status, lag: Number(reply[1]), lost, redisNowMs: Number(reply[2]) };
  }

  /** The Redis's clock (TIME), ms since epoch. */
  async redisNowMs(): Promise<number> {
    const [s, us] = await this.redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  /** Withdraws the heartbeat at once (clean shutdown): reads fail fast instead of going stale. */
  async clearHeartbeat(): Promise<void> {
    await this.redis.del(this.keys.heartbeat, this.keys.current);
  }
}
