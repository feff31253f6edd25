/**
 * As of when a shard held every record of the log, on its Redis's clock: what bounds how stale a
 * served answer may be (heartbeat.lua keeps it beside the heartbeat; read-header.lua refuses the
 * shard once that Redis's clock passes it by the bound).
 *
 * CURRENT. An answer of the log's end offsets E, to a question asked at node time T, holds every
 * record acknowledged before T (an acknowledged record is below the end offsets). Once the shard
 * holds every one of its partitions up to E, it holds everything acknowledged before T: it is
 * current as of T. The node keeps the answers not yet reached and, at each heartbeat, takes the
 * newest one its applier reached as its as-of; the heartbeat script also checks the offsets the
 * shard's Redis holds against the heartbeat's targets (a snapshot loaded, say, moves them without
 * the applier), and a shard found holding them is current as of the targets' answer (reached()).
 *
 * CLOCKS. The as-of is node time; reads are checked on the Redis's clock. Each heartbeat's reply
 * carries the Redis's TIME `r`, received at node time `n`: the Redis read its clock before the
 * node received the reply, so node time T is at least r + (T - n) on the Redis's clock, whatever
 * the network's delays. The as-of passed is that lower bound, the tightest of the recent replies
 * (the largest r - n): an answer is never served later than the bound allows, only earlier when a
 * reply was slow. Node time is performance.now() (monotonic); the Redis's clock is its own.
 */

/** How many clock samples (heartbeat replies) the offset is taken from. */
const CLOCK_SAMPLES = 16;
/** Answers of end offsets kept while not yet reached (a node far behind keeps the newest). */
const MAX_PENDING = 64;

export class CurrentAsOf {
  /** End offsets answers not reached yet, oldest first; askedAt is node time. */
  private pending: Array<{ askedAt: number; ends: ReadonlyMap<number, bigint> }> = [];
  /** Node time as of which the shard held every record of the log (-Infinity: not known). */
  private asOf = -Infinity;
  /** Recent (Redis clock - node clock) lower bounds, newest last. */
  private offsets: number[] = [];

  /** An answer of the log's end offsets, to a question asked at node time `askedAt` (a repeat of the last is ignored). */
  seen(askedAt: number, ends: ReadonlyMap<number, bigint>): void {
    const last = this.pending.at(-1);
    if (askedAt <= this.asOf || (last && askedAt <= last.askedAt)) return;
    this.pending.push({ askedAt, ends });
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }

  /** Moves the as-of to the newest answer that every partition in `slots` has applied up to (`known`: the last applied offset, -1 none). */
  update(slots: readonly number[], known: (partition: number) => bigint): void {
    let reached = -1;
    this.pending.forEach((a, i) => {
      if (slots.every((p) => known(p) >= (a.ends.get(p) ?? 0n) - 1n)) reached = i;
    });
    if (reached < 0) return;
    this.asOf = Math.max(this.asOf, this.pending[reached]!.askedAt);
    this.pending = this.pending.slice(reached + 1);
  }

  /** The shard was found holding every record of the answer asked at node time `askedAt` (heartbeat.lua: lag 0). */
  reached(askedAt: number): void {
    this.asOf = Math.max(this.asOf, askedAt);
    this.pending = this.pending.filter((a) => a.askedAt > this.asOf);
  }

  /** The shard no longer holds what it applied (a rewind, lost data): not current until an answer is reached again. */
  reset(): void {
    this.asOf = -Infinity;
  }

  /** A reading `redisMs` of the Redis's clock, received at node time `receivedAt`. */
  clock(redisMs: number, receivedAt: number): void {
    this.offsets.push(redisMs - receivedAt);
    if (this.offsets.length > CLOCK_SAMPLES) this.offsets.shift();
  }

  /** Whether a reading of the Redis's clock was taken. */
  get hasClock(): boolean {
    return this.offsets.length > 0;
  }

  /** The as-of on the Redis's clock (never later than the truth), or undefined when not current or without a clock reading. */
  redisAsOf(): number | undefined {
    return this.onRedisClock(this.asOf);
  }

  /** Node time `t` on the Redis's clock (never later than the truth), or undefined without a clock reading (or for -Infinity). */
  onRedisClock(t: number): number | undefined {
    if (!Number.isFinite(t) || this.offsets.length === 0) return undefined;
    return Math.floor(t + Math.max(...this.offsets));
  }
}
