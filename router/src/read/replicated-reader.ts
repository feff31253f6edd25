/**
 * The reads of a shard that has replicas (a ReplicaSet, replicas.ts), and how they go through a
 * failover.
 *
 * Two readers over one set. A ReplicatedReader asks one usable node per read (one atomic script,
 * as always): the usable nodes are taken in turn (round robin), and a node that fails or refuses
 * with UNAVAILABLE is followed by the next one, within the caller's per-shard deadline. A
 * PrimaryReader asks the primary only, through Sentinel (`set.primary`, store/src/connect.ts): the
 * reads that carry a consistency token (its offsets are the primary's applied offsets, so are the
 * shard's own: wait-applied.ts) and the watchers' standings (the change streams are the primary's:
 * push/watch-hub.ts).
 *
 * THROUGH A FAILOVER. When no node answers because connections fail (a primary just killed, a
 * replica being promoted), a read asks again every FAILOVER_RETRY_MS (as the probes find the nodes;
 * the primary-only reader as its connection finds the promoted primary) for up to RETRY_SHARE of
 * the shard's deadline, and is then refused in ladder's words ("shard-1: primary lost, failover in
 * progress, retry"), never the Redis client's, so the refusal comes before the deadline's. A
 * refusal of the shard's own (not serving, built for another placement: a LadderError) is the
 * answer at once: another node, or the same one again, would repeat it.
 */
import type { Redis } from "ioredis";
import { Code, LadderError, unavailable } from "@ladder/model/errors";
import type { KeyedMember, TieScale, TieValue } from "@ladder/model/score-encoding";
import {
  FAILOVER_RETRY_MS,
  readyWithin,
  ShardReader,
  type AfterResult,
  type IndexProbe,
  type InstantReads,
  type PlayerData,
  type RanksResult,
  type ShardReaderOptions,
  type StandingResult,
  type TopResult,
  type WindowResult,
} from "@ladder/store";
import type { ReplicaSet } from "./replicas.js";

/**
 * The share of the shard's deadline a read spends asking the nodes again while their connections
 * fail (a failover under way), so that its refusal, in ladder's words, comes before the deadline's.
 */
const RETRY_SHARE = 0.75;

/** How long a read waits for a usable node's connection that is being made again. */
const RECONNECT_WAIT_MS = 250;

/** One pass of a read over a shard's nodes: the answer, or the last refusal and whether the primary was lost. */
type Round<T> = { value: T } | { refusal: unknown; primaryLost: boolean };

/**
 * `round` until it answers: again every FAILOVER_RETRY_MS while it fails for connections, for up
 * to RETRY_SHARE of the shard's deadline; a LadderError is final. Then refused in ladder's words.
 */
async function throughFailover<T>(set: ReplicaSet, round: () => Promise<Round<T>>): Promise<T> {
  const until = performance.now() + set.timeoutMs * RETRY_SHARE;
  for (;;) {
    const r = await round();
    if ("value" in r) return r.value;
    if (r.refusal instanceof LadderError) throw r.refusal;
    if (performance.now() + FAILOVER_RETRY_MS > until) throw unreachable(set.shardId, r.primaryLost, r.refusal);
    await new Promise((resolve) => setTimeout(resolve, FAILOVER_RETRY_MS));
  }
}

/** The refusal of a read no node answered because connections failed. */
function unreachable(shardId: string, primaryLost: boolean, cause: unknown): LadderError {
  return unavailable(
    primaryLost
      ? `${shardId}: primary lost, failover in progress, retry`
      : `${shardId}: no Redis node of the shard answers (connections failing), retry`,
    cause,
  );
}

/**
 * A ShardReader over a ReplicaSet: each read goes to one usable node (see above). The applied
 * offsets (consistency tokens) are always the primary's. Reads that must see the primary only
 * use a PrimaryReader (ShardPool.primaries()).
 */
export class ReplicatedReader extends ShardReader {
  private readonly set: ReplicaSet;
  private readonly options: Omit<ShardReaderOptions, "redis">;
  private readonly byNode = new WeakMap<Redis, ShardReader>();

  constructor(set: ReplicaSet, options: Omit<ShardReaderOptions, "redis">) {
    super({ ...options, redis: set.primary });
    this.set = set;
    this.options = options;
  }

  override top(board: string, count: number): Promise<TopResult> {
    return this.onNode(
      (r) => r.top(board, count),
      () => super.top(board, count),
    );
  }

  override window(board: string, key: number, playerId: string, radius: number): Promise<WindowResult> {
    return this.onNode(
      (r) => r.window(board, key, playerId, radius),
      () => super.window(board, key, playerId, radius),
    );
  }

  override standing(board: string, playerId: string, radius: number): Promise<StandingResult | undefined> {
    return this.onNode(
      (r) => r.standing(board, playerId, radius),
      () => super.standing(board, playerId, radius),
    );
  }

  override entry(board: string, playerId: string): Promise<number | undefined> {
    return this.onNode(
      (r) => r.entry(board, playerId),
      () => super.entry(board, playerId),
    );
  }

  override ranks(board: string, players: readonly string[], positions: readonly KeyedMember[]): Promise<RanksResult> {
    return this.onNode(
      (r) => r.ranks(board, players, positions),
      () => super.ranks(board, players, positions),
    );
  }

  override distinct(board: string, scale: TieScale, bound: TieValue, cap: number): Promise<TieValue[]> {
    return this.onNode(
      (r) => r.distinct(board, scale, bound, cap),
      () => super.distinct(board, scale, bound, cap),
    );
  }

  override histogram(board: string): Promise<{ card: number; counts: Map<number, number> }> {
    return this.onNode(
      (r) => r.histogram(board),
      () => super.histogram(board),
    );
  }

  override after(board: string, from: KeyedMember, count: number, backward: boolean): Promise<AfterResult> {
    return this.onNode(
      (r) => r.after(board, from, count, backward),
      () => super.after(board, from, count, backward),
    );
  }

  /** The unit on one node, the whole unit asked again on another (store/src/reader.ts, atOnce). */
  override atOnce<T>(reads: (r: InstantReads) => Promise<T>): Promise<T> {
    return this.onNode(
      (r) => r.atOnce(reads),
      () => super.atOnce(reads),
    );
  }

  /**
   * `read` on the usable nodes in turn until one answers; before the first probe found any, on the
   * primary; through a failover as the essay says.
   */
  private onNode<T>(read: (reader: ShardReader) => Promise<T>, onPrimary: () => Promise<T>): Promise<T> {
    return throughFailover(this.set, () => this.round(read, onPrimary));
  }

  /**
   * One pass over the nodes (none usable: the primary, through Sentinel): an answer, or the last
   * refusal (a LadderError is final) and whether the primary was lost.
   */
  private async round<T>(read: (reader: ShardReader) => Promise<T>, onPrimary: () => Promise<T>): Promise<Round<T>> {
    const readable = this.set.nextReadable();
    if (readable.length === 0)
      return onPrimary().then(
        (value) => ({ value }),
        (err: unknown) => ({ refusal: err, primaryLost: this.set.primaryLost && !(err instanceof LadderError) }),
      );
    let last: unknown = new Error("no node serves reads");
    let primaryLost = this.set.primaryLost;
    const tried = new Set<Redis>();
    const attempt = async (redis: Redis): Promise<{ value: T } | undefined> => {
      tried.add(redis);
      try {
        if (redis.status !== "ready") await readyWithin(redis, RECONNECT_WAIT_MS);
        return { value: await read(this.readerOf(redis)) };
      } catch (err) {
        // a refusal that another node would repeat (configuration, unknown view) is the answer
        if (err instanceof LadderError && err.code !== Code.UNAVAILABLE) throw err;
        if (!(err instanceof LadderError) && this.set.isPrimary(redis)) primaryLost = true;
        last = err;
        return undefined;
      }
    };
    for (const redis of readable) {
      const got = await attempt(redis);
      if (got) return got;
    }
    // the primary's connection failed under this read (killed, say) before a probe saw it: the
    // replicas current when it was last seen may answer now, as they will after the next probe
    if (primaryLost) {
      for (const redis of this.set.readableWithoutPrimary()) {
        if (tried.has(redis)) continue;
        const got = await attempt(redis);
        if (got) return got;
      }
    }
    // the last failure: a shard's own refusal (not serving, say) is the answer; a connection's is worth another round
    return { refusal: last, primaryLost };
  }

  private readerOf(redis: Redis): ShardReader {
    let reader = this.byNode.get(redis);
    // batched as a primary's reads are: the reads of a turn that land on this node go as one command
    // (a batch that fails is asked again read by read on the next node, as a single read would be)
    if (!reader) this.byNode.set(redis, (reader = new ShardReader({ ...this.options, redis })));
    return reader;
  }
}

/**
 * A ShardReader over a ReplicaSet's primary alone (through Sentinel): every read, and the applied
 * offsets, asked again through a failover as the essay says. Any error but a LadderError is the
 * primary's connection failing (killed, demoted, being promoted): the primary is lost for the read.
 */
export class PrimaryReader extends ShardReader {
  private readonly set: ReplicaSet;

  constructor(set: ReplicaSet, options: Omit<ShardReaderOptions, "redis">) {
    super({ ...options, redis: set.primary });
    this.set = set;
  }

  override top(board: string, count: number): Promise<TopResult> {
    return this.again(() => super.top(board, count));
  }

  override window(board: string, key: number, playerId: string, radius: number): Promise<WindowResult> {
    return this.again(() => super.window(board, key, playerId, radius));
  }

  override standing(board: string, playerId: string, radius: number): Promise<StandingResult | undefined> {
    return this.again(() => super.standing(board, playerId, radius));
  }

  override entry(board: string, playerId: string): Promise<number | undefined> {
    return this.again(() => super.entry(board, playerId));
  }

  override ranks(board: string, players: readonly string[], positions: readonly KeyedMember[]): Promise<RanksResult> {
    return this.again(() => super.ranks(board, players, positions));
  }

  override ranksAt(
    board: string,
    players: readonly string[],
    positions: readonly KeyedMember[],
  ): Promise<RanksResult & { changeId: string; changeGen: string }> {
    return this.again(() => super.ranksAt(board, players, positions));
  }

  override distinct(board: string, scale: TieScale, bound: TieValue, cap: number): Promise<TieValue[]> {
    return this.again(() => super.distinct(board, scale, bound, cap));
  }

  override after(board: string, from: KeyedMember, count: number, backward: boolean): Promise<AfterResult> {
    return this.again(() => super.after(board, from, count, backward));
  }

  override histogram(board: string): Promise<{ card: number; counts: Map<number, number> }> {
    return this.again(() => super.histogram(board));
  }

  override audit(playerId: string, board: string, limit: number): Promise<string[]> {
    return this.again(() => super.audit(playerId, board, limit));
  }

  override playerData(playerId: string, slot: number): Promise<PlayerData> {
    return this.again(() => super.playerData(playerId, slot));
  }

  override histogramAt(board: string, j: number): Promise<{ card: number; better: number; inBucket: number }> {
    return this.again(() => super.histogramAt(board, j));
  }

  override indexProbe(board: string): Promise<IndexProbe> {
    return this.again(() => super.indexProbe(board));
  }

  override appliedOffsetsOf(partitions: readonly number[]): Promise<bigint[]> {
    return this.again(() => super.appliedOffsetsOf(partitions));
  }

  override atOnce<T>(reads: (r: InstantReads) => Promise<T>): Promise<T> {
    return this.again(() => super.atOnce(reads));
  }

  /** `read` on the primary, asked again while its connection fails (see the essay). */
  private again<T>(read: () => Promise<T>): Promise<T> {
    return throughFailover(this.set, () =>
      read().then(
        (value) => ({ value }),
        (err: unknown) => ({ refusal: err, primaryLost: !(err instanceof LadderError) }),
      ),
    );
  }
}
