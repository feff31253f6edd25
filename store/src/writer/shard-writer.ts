/**
 * ShardWriter: the write side of one shard's Redis. The shard node applies the log through
 * it and keeps the shard's heartbeat; rebuilds replay the log through it into a spare
 * database or an audit view. Every call is one script round trip.
 */
import type { Redis } from "ioredis";
import { keyLayout, type KeyLayout } from "../keys.js";
import { ApplyStatus, withWriteScripts, type HeartbeatStatus, type WriteScripts } from "../scripts.js";

/** A score event ready for the apply script: validated, time already quantized. */
export interface PreparedEvent {
  offset: bigint;
  board: string;
  playerId: string;
  /** 1 SET, 2 INCREMENT, 3 BEST; 0 = an unusable record that only advances the offset. */
  op: number;
  value: number;
  timeIdx: number;
  maxPoints: number;
  minPoints: number;
  timeUnits: number;
  ttlSeconds: number;
  /** The caller's idempotency key ("" = none). */
  eventId: string;
  /** When ingest accepted the event (Unix ms): the clock of the dedup window. */
  ingestedAtMs: number;
}

export interface ApplyResult {
  /** False when the events did not follow the stored offset: rewind to lastOffset + 1. */
  inSequence: boolean;
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
  /** Records behind the log's end, over all the node's partitions. */
  lag: number;
  /** Partitions whose stored offset fell below what was applied (data lost), with the stored offset. */
  lost: Map<number, bigint>;
}

export interface ShardWriterOptions {
  shardId: string;
  redis: Redis;
  keyPrefix: string;
  /** How long applied event ids are remembered (0 = never). */
  dedupWindowMs: number;
}

export class ShardWriter {
  readonly shardId: string;
  readonly keys: KeyLayout;
  private readonly redis: Redis & WriteScripts;
  private readonly dedupWindowMs: number;

  constructor(o: ShardWriterOptions) {
    this.shardId = o.shardId;
    this.keys = keyLayout(o.keyPrefix);
    this.redis = withWriteScripts(o.redis);
    this.dedupWindowMs = o.dedupWindowMs;
  }

  /**
   * Applies events of one partition, in offset order; already-applied ones are skipped.
   * Stops at the first event that does not follow the stored offset (inSequence false).
   */
  async apply(partition: number, events: readonly PreparedEvent[]): Promise<ApplyResult> {
    const keys = [this.keys.offsets, this.keys.dedup(partition), ...events.map((e) => this.keys.board(e.board))];
    const args: Array<string | number> = [partition, events.length, this.dedupWindowMs];
    for (const e of events) {
      args.push(e.offset.toString(), e.playerId, e.op, e.value, e.timeIdx, e.maxPoints, e.minPoints, e.timeUnits, e.ttlSeconds, e.eventId, e.ingestedAtMs);
    }
    const [status, applied, skipped, last, duplicates] = await this.redis.ladderApply(keys.length, ...keys, ...args);
    return { inSequence: status === ApplyStatus.OK, applied, skipped, duplicates, lastOffset: BigInt(last) };
  }

  /** The last applied offset of every partition this Redis has seen. */
  async appliedOffsets(): Promise<Map<number, bigint>> {
    const raw = await this.redis.hgetall(this.keys.offsets);
    return new Map(Object.entries(raw).map(([p, o]) => [Number(p), BigInt(o)]));
  }

  /** The last applied offset of each of `partitions` (-1 where none). */
  async appliedOffsetsOf(partitions: readonly number[]): Promise<bigint[]> {
    const raw = await this.redis.hmget(this.keys.offsets, ...partitions.map(String));
    return raw.map((o) => (o === null ? -1n : BigInt(o)));
  }

  /** Sets the heartbeat unconditionally (audit views, tools): the keys serve reads for `ttlMs`. */
  async heartbeat(ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.heartbeat, this.shardId, "PX", ttlMs);
  }

  /**
   * Sets the heartbeat if the shard's data may be served (see heartbeat.lua): nothing lost
   * against `known` applied offsets and, while `mustCatchUp`, within `maxLag` of `logEnd`.
   */
  async conditionalHeartbeat(o: { ttlMs: number; mustCatchUp: boolean; maxLag: number; partitions: ReadonlyArray<{ partition: number; known: bigint; logEnd: bigint }> }): Promise<HeartbeatResult> {
    const args: Array<string | number> = [this.shardId, o.ttlMs, o.mustCatchUp ? 1 : 0, o.maxLag, o.partitions.length];
    for (const p of o.partitions) args.push(p.partition, p.known.toString(), p.logEnd.toString());
    const reply = await this.redis.ladderHeartbeat(this.keys.heartbeat, this.keys.offsets, ...args);
    const lost = new Map<number, bigint>();
    for (let i = 2; i + 1 < reply.length; i += 2) lost.set(Number(reply[i]), BigInt(String(reply[i + 1])));
    return { status: Number(reply[0]) as HeartbeatStatus, lag: Number(reply[1]), lost };
  }

  /** Withdraws the heartbeat at once (clean shutdown): reads fail fast instead of going stale. */
  async clearHeartbeat(): Promise<void> {
    await this.redis.del(this.keys.heartbeat);
  }
}
