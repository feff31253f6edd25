/**
 * Lag admission: writes slow down, then are refused, instead of falling behind.
 *
 * WHAT IS MEASURED. A shard's freshness is how long an acknowledged record waits before its shard
 * applies it. Ingest knows when it acknowledged each batch and the offsets the log gave it. While a
 * shard owes records of this ingest, ingest asks it every `pollMs` for its applied offsets and
 * whether its node serves (one round trip, ShardReader.progress). From that it keeps, per shard:
 *   - its age: how long ago the oldest record it owes was acknowledged;
 *   - what it owes: the records between its applied offsets and the last offsets acknowledged, plus
 *     the records of batches admitted and not yet acknowledged (in flight to the log);
 *   - its rate: the records it applied per ms between two polls at which it owed records (busy all
 *     along, so applying as fast as it can), averaged (EWMA).
 * Its lag is the larger of its age and what it owes over its rate: how long a record admitted now
 * would wait. Without a rate, a shard that owes records takes no more, like a connection's slow
 * start, until a poll finds it busy twice in a row (its rate is then known) or caught up: one that
 * applies faster than it is written to has no rate to learn, and its age holds it, with what it owes
 * kept within one apply call's worth (SLOW_START_RECORDS): else writes arriving together before its
 * rate is known would all be let in at once. With
 * several ingests, each one's records interleave with the others' in the same
 * partitions, so each sees the shard's backlog through its own records.
 *
 * WHAT IS DONE. A valid batch goes to the log only when every shard it writes to would apply it
 * within its target (below the bound, `maxLagMs`, LADDER_INGEST_MAX_LAG_MS: THE TARGET below), its
 * own records counted in what the shard owes (a shard that owes nothing takes any batch). Otherwise
 * it waits, looking again at each poll: the acknowledgement slows, and a caller that sends its next
 * batch after the answer slows with it. Batches admitted are counted at once, so writes waiting
 * together are let in only as far as the target allows, not all at once. After `waitMs`
 * (LADDER_INGEST_LAG_WAIT_MS), or just before the caller's deadline, a batch is refused whole:
 * RESOURCE_EXHAUSTED naming the shard, its lag, its target and the bound, with retry-after-ms;
 * nothing written. Only the shards a batch writes to are
 * looked at: a slow shard slows the writes for its own players, not the others'.
 *
 * WHAT IT BOUNDS. Records are admitted to a shard only while what it owes, theirs included, takes
 * less than its target at the rate it applies, so an admitted record waits about the target, plus
 * one poll (what is seen is up to `pollMs` old) and the error of the rate. Past capacity the backlog
 * stays near the target instead of growing; below it nothing waits and nothing changes.
 *
 * THE TARGET FOLLOWS WHAT HAPPENED. A prediction misses: the rate is an average of a shard whose
 * apply calls, fetches and pauses vary, and the time from admission to acknowledgement is not in it.
 * So each poll also looks at what came true: the records it finds applied were acknowledged at known
 * times, and the poll's answer bounds when they were applied, which gives their freshness (an upper
 * bound, by at most one poll). Records are steered to an aim below the bound (AIM of it): what is
 * left is headroom for what no admission foresees (a shard node or its Redis paused, descheduled on
 * a busy machine), which a backlog held right at the bound would pass on to every record it holds.
 * (A pause longer than the headroom still passes it on: past capacity on two busy cores, the records'
 * 99th percentile passes the bound; docs/performance.md, "Writes past capacity".) A shard's
 * target starts at the aim; when a poll finds records that took longer than the aim, the target
 * shrinks in proportion (target × aim ÷ freshness, at least a quarter of the bound), and while they
 * take less, it grows back by TARGET_RECOVERY of the margin per poll. The aim is then what the records
 * admitted actually see, not only what was predicted for them: a shard whose predictions run late
 * takes less, one that keeps within the aim takes up to it.
 *
 * NOT GATED. A shard whose node does not serve (stopped, starting, catching up after a start,
 * rebuilding, or its Redis unreachable) is an outage, not load: its writes are admitted and the log
 * holds them, as it always does, and reads of that shard are refused with their own reason until
 * it serves again. Once it serves, the records it still owes gate its writes again.
 *
 * COSTS. One round trip per shard that owes records per poll (none when idle); per call, a look at
 * the state of each shard the batch writes to; the memory of
 * one entry per partition per `COALESCE_MS` of acknowledgements (entries closer in time merge, and
 * a partition never keeps more than MAX_ENTRIES: the oldest time stays, so a lag is never
 * under-stated).
 */
import { Code, LadderError } from "@ladder/model/errors";
import type { IngestMetrics } from "./metrics.js";
import type { ShardReaders } from "./shard-readers.js";

/** Acknowledgements of one partition closer than this in time share one entry. */
const COALESCE_MS = 5;
/** Entries one partition keeps at most (then the newest takes the later offsets). */
const MAX_ENTRIES = 4096;

export interface LagAdmissionOptions {
  /** The bound on a shard's lag past which writes to it wait (ms). */
  readonly maxLagMs: number;
  /** How long a write waits for its shards before it is refused (ms). */
  readonly waitMs: number;
  /** How often the shards with unapplied records are asked for their applied offsets (ms). */
  readonly pollMs: number;
}

/** One partition's records this ingest acknowledged and its shard has not applied, oldest first. */
interface Pending {
  offsets: bigint[];
  at: number[];
  head: number;
  /** Its last applied offset at the last poll (undefined before the first). */
  applied?: bigint;
}

export class LagAdmission {
  private readonly pending = new Map<number, Pending>();
  private readonly shardState = new Map<string, ShardState>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Resolved at the end of each poll: waiting writes look again then. */
  private polled = signal();
  private closed = false;

  constructor(
    private readonly o: LagAdmissionOptions,
    private readonly shards: ShardReaders,
    private readonly metrics: Pick<IngestMetrics, "refusedCalls" | "lagWaits" | "shardLag" | "admitTarget" | "freshness">,
    private readonly now: () => number = Date.now,
  ) {}

  private state(shardId: string): ShardState {
    let s = this.shardState.get(shardId);
    if (!s)
      this.shardState.set(shardId, (s = { serving: true, oldest: undefined, logged: 0, inFlight: 0, rate: undefined, caughtUp: false }));
    return s;
  }

  /**
   * Admits a valid batch (the partition of each of its records) when every shard it writes to is
   * within the bound; waits while one is not, then throws RESOURCE_EXHAUSTED (nothing written) after
   * `waitMs` or just before `deadlineMs`. The ticket goes back through `written` or `failed`.
   */
  async admit(partitions: readonly number[], deadlineMs: number): Promise<Ticket> {
    if (this.o.maxLagMs <= 0) return { records: new Map() };
    const { slotToShard } = this.shards.current().placement;
    const records = new Map<string, number>();
    for (const p of partitions) {
      const shardId = slotToShard[p]!;
      records.set(shardId, (records.get(shardId) ?? 0) + 1);
    }
    let behind = this.behind(records);
    if (behind) {
      this.metrics.lagWaits.inc();
      const until = Math.min(this.now() + this.o.waitMs, deadlineMs - this.o.pollMs);
      while (behind) {
        const left = until - this.now();
        if (left <= 0 || this.closed) {
          this.metrics.refusedCalls.inc({ reason: "lag" });
          const lagMs = Number.isFinite(behind.lagMs) ? behind.lagMs : behind.ageMs;
          const retryAfterMs = Math.min(this.o.waitMs || 1_000, Math.max(this.o.pollMs, Math.ceil(lagMs - behind.targetMs)));
          throw new LadderError(
            Code.RESOURCE_EXHAUSTED,
            `${behind.shardId} is ${Math.round(lagMs)} ms behind the log, past the ${Math.round(behind.targetMs)} ms ingest admits there now to hold the bound of ${this.o.maxLagMs} ms (LADDER_INGEST_MAX_LAG_MS): retry in ${retryAfterMs} ms; nothing of this batch was written`,
            { retriable: true, retryAfterMs },
          );
        }
        this.schedule();
        await Promise.race([this.polled.promise, new Promise((r) => setTimeout(r, left).unref())]);
        behind = this.behind(records);
      }
    }
    for (const [shardId, n] of records) this.state(shardId).inFlight += n; // counted now: writes waiting with it see it
    return { records };
  }

  /** The batch of `ticket` was acknowledged with these offsets (partition -> last offset of the batch), now. */
  written(ticket: Ticket, written: ReadonlyMap<number, bigint>): void {
    if (this.o.maxLagMs <= 0) return;
    const at = this.now();
    for (const [shardId, n] of ticket.records) {
      const s = this.state(shardId);
      s.inFlight -= n;
      s.logged += n;
      s.oldest ??= at;
    }
    for (const [partition, offset] of written) {
      let p = this.pending.get(partition);
      if (!p) this.pending.set(partition, (p = { offsets: [], at: [], head: 0 }));
      const last = p.offsets.length - 1;
      if (last >= p.head && (at - p.at[last]! < COALESCE_MS || last - p.head + 1 >= MAX_ENTRIES)) {
        if (offset > p.offsets[last]!) p.offsets[last] = offset; // merged: the older time stays
      } else {
        p.offsets.push(offset);
        p.at.push(at);
      }
    }
    this.schedule();
  }

  /** The batch of `ticket` was not acknowledged (refused or failed): its records are not owed. */
  failed(ticket: Ticket): void {
    for (const [shardId, n] of ticket.records) this.state(shardId).inFlight -= n;
  }

  /** The shard furthest past its target among those `records` would go to, if any. */
  private behind(records: ReadonlyMap<string, number>): { shardId: string; lagMs: number; ageMs: number; targetMs: number } | undefined {
    const now = this.now();
    let worst: { shardId: string; lagMs: number; ageMs: number; targetMs: number } | undefined;
    for (const [shardId, n] of records) {
      const s = this.shardState.get(shardId);
      if (!s || !s.serving) continue;
      const owed = s.logged + s.inFlight;
      if (owed <= 0) continue; // a shard that owes nothing takes any batch
      const age = s.oldest === undefined ? 0 : now - s.oldest;
      // without a rate, a shard that owes records takes no more until a poll finds it caught up (it
      // applies faster than it is written to: its age holds it) or busy twice (its rate is then known)
      // (a caught-up one up to SLOW_START_RECORDS: writes arriving together before its rate is known
      // are let in a window at a time, not all at once)
      const lagMs = Math.max(
        age,
        s.rate ? (owed + n) / s.rate : s.caughtUp && owed + n <= SLOW_START_RECORDS ? 0 : Number.POSITIVE_INFINITY,
      );
      const targetMs = this.targetOf(s);
      if (lagMs > targetMs && (!worst || lagMs - targetMs > worst.lagMs - worst.targetMs)) worst = { shardId, lagMs, ageMs: age, targetMs };
    }
    return worst;
  }

  private schedule(): void {
    if (this.timer || this.polling || this.closed || this.o.maxLagMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        const { resolve } = this.polled;
        this.polled = signal();
        resolve();
        if (this.pending.size > 0 || [...this.shardState.values()].some((s) => s.inFlight > 0)) this.schedule();
      });
    }, this.o.pollMs);
    this.timer.unref();
  }

  /** Asks each shard that owes records for its applied offsets; drops what it applied; updates its rate. */
  private async poll(): Promise<void> {
    const table = this.shards.current();
    const byShard = new Map<string, number[]>();
    for (const partition of this.pending.keys()) {
      const shardId = table.placement.slotToShard[partition]!;
      const list = byShard.get(shardId);
      if (list) list.push(partition);
      else byShard.set(shardId, [partition]);
    }
    await Promise.all(
      [...byShard].map(async ([shardId, partitions]) => {
        const reader = table.readers.get(shardId);
        if (!reader) return;
        const s = this.state(shardId);
        const asked = this.now();
        const progress = await reader.progress(partitions).catch(() => undefined); // unreachable: not serving
        s.serving = progress?.serving ?? false;
        if (!progress) return;
        const answered = this.now();
        let applied = 0;
        let freshest = -1; // the longest an entry found applied took from its acknowledgement (at most)
        partitions.forEach((partition, i) => {
          const p = this.pending.get(partition)!;
          const now = progress.applied[i]!;
          if (p.applied !== undefined && now > p.applied) applied += Number(now - p.applied);
          p.applied = now;
          for (; p.head < p.offsets.length && p.offsets[p.head]! <= now; p.head++) {
            const took = answered - p.at[p.head]!;
            this.metrics.freshness.observe({ shard: shardId }, took / 1000);
            freshest = Math.max(freshest, took);
          }
          if (p.head >= p.offsets.length) this.pending.delete(partition);
          else if (p.head > 1024) {
            p.offsets.splice(0, p.head);
            p.at.splice(0, p.head);
            p.head = 0;
          }
        });
        // a rate seen while the shard owed records from one poll to the next: as fast as it applies
        if (s.busySince !== undefined && applied > 0) {
          const sample = applied / Math.max(1, asked - s.busySince);
          s.rate = s.rate === undefined ? sample : s.rate * (1 - RATE_WEIGHT) + sample * RATE_WEIGHT;
        }
        if (freshest >= 0) this.steer(s, freshest);
        s.busySince = partitions.some((p) => this.pending.has(p)) ? asked : undefined;
        if (s.busySince === undefined) s.caughtUp = true;
      }),
    );
    // each shard's oldest owed record and what it owes, counting what was acknowledged meanwhile
    const now = this.now();
    for (const s of this.shardState.values()) {
      s.oldest = undefined;
      s.logged = 0;
    }
    for (const [partition, p] of this.pending) {
      const s = this.state(table.placement.slotToShard[partition]!);
      const at = p.at[p.head]!;
      if (s.oldest === undefined || at < s.oldest) s.oldest = at;
      const last = p.offsets[p.offsets.length - 1]!;
      s.logged += Number(last - (p.applied ?? p.offsets[p.head]! - 1n));
    }
    for (const [shardId, s] of this.shardState) {
      this.metrics.shardLag.set({ shard: shardId }, s.oldest === undefined ? 0 : (now - s.oldest) / 1000);
      this.metrics.admitTarget.set({ shard: shardId }, this.targetOf(s) / 1000);
    }
  }

  /** The lag a shard is admitted up to now (ms): its target, the aim until a poll moved it. */
  private targetOf(s: ShardState): number {
    return s.targetMs ?? this.o.maxLagMs * AIM;
  }

  /** Moves a shard's target after a poll found records applied `freshnessMs` (at most) after their acknowledgement. */
  private steer(s: ShardState, freshnessMs: number): void {
    const aim = this.o.maxLagMs * AIM;
    const target = this.targetOf(s);
    s.targetMs =
      freshnessMs > aim
        ? Math.max(this.o.maxLagMs * MIN_TARGET, (target * aim) / freshnessMs)
        : Math.min(aim, target + (aim - freshnessMs) * TARGET_RECOVERY);
  }

  /** Stops polling; writes still waiting are refused. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
    this.polled.resolve();
  }
}

/** What a shard owes this ingest, as last seen. */
interface ShardState {
  /** Whether its node served at the last poll (a shard not asked yet counts as serving). */
  serving: boolean;
  /** When the oldest record it owes was acknowledged. */
  oldest: number | undefined;
  /** Records acknowledged and not applied. */
  logged: number;
  /** Records of admitted batches not yet acknowledged. */
  inFlight: number;
  /** Records it applies per ms when busy (EWMA); unknown until seen busy. */
  rate: number | undefined;
  /** When the last poll that found it owing records asked it. */
  busySince?: number | undefined;
  /** Whether a poll found it owing nothing (then, until it has a rate, its age alone holds it). */
  caughtUp: boolean;
  /** The lag it is admitted up to (ms): the aim (AIM of the bound), less while its records take longer than the aim; unset = the aim. */
  targetMs?: number;
}

/** What an admitted batch takes: its records per shard. */
export interface Ticket {
  readonly records: ReadonlyMap<string, number>;
}

/**
 * What a caught-up shard whose rate is not known yet may owe (records): one apply call's worth at the
 * shard node's default LADDER_APPLY_BATCH.
 */
const SLOW_START_RECORDS = 500;

/** The weight of a new rate sample in the average. */
const RATE_WEIGHT = 0.3;

/** The share of the bound records are steered to; the rest is headroom for pauses no admission foresees. */
const AIM = 0.8;
/** A shard's target never shrinks below this share of the bound. */
const MIN_TARGET = 0.25;
/** The share of the margin (aim − freshness seen) a target grows back by at each poll. */
const TARGET_RECOVERY = 0.02;

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
