/**
 * ShardReader: the read side of one shard's Redis, what the router runs. Every call is one
 * read-only script round trip that first checks the shard's heartbeat (read-header.lua)
 * against the reader's stamp (identity.ts): a shard whose node is not serving answers
 * UNAVAILABLE with the node's reason, one built from another topic, slots or board specs
 * FAILED_PRECONDITION saying what differs; never a stale, partial or misread board.
 *
 * READS THAT ARRIVE TOGETHER GO TOGETHER. A router under load asks each shard many small reads
 * at once (every rank asks the owner, then every other shard). A reader queues the reads it is
 * asked in one turn of the event loop and, at the end of that turn (process.nextTick, after the
 * promise callbacks that issued them), sends them as one command: alone, the read's own script;
 * two or more, read-batch.lua, which checks the heartbeat once and runs each read's own function,
 * all at one instant, replying what each script would have. Nothing waits for company: a read
 * alone is sent at the end of the turn that asked it. A batch holds at most MAX_BATCH reads, and
 * tops deeper than BATCH_TOP_MAX entries are always sent alone (their cost is their own). Per read
 * this saves a command's encoding, parsing and promise plumbing in the router (ioredis) and in
 * Redis, which the router's CPU profile under rank load showed as its largest cost after gRPC.
 * A reader made with `batch: false` sends each read at once, alone (the router's readers of
 * replica nodes: router/src/replicas.ts says why).
 */
import type { Redis } from "ioredis";
import type { KeyedMember } from "@ladder/common/score-encoding";
import { appliedOffsetsOf, keyLayout, type KeyLayout } from "./keys.js";
import type { LadderError } from "@ladder/common/errors";
import { readRefusal, ReadStatus, withReadScripts, type ReadScripts, type Reply } from "./scripts.js";

export interface TopResult {
  card: number;
  members: KeyedMember[];
}

export interface WindowResult {
  /** Members of this shard ranked strictly ahead of the position. */
  ahead: number;
  card: number;
  /** 0-based shard rank of members[0]. */
  start: number;
  members: KeyedMember[];
}

/** A player's standing on the shard that owns it, read at one instant (read-standing.lua). */
export interface StandingResult {
  /** The player's sort key. */
  key: number;
  /** Members of this shard ranked strictly ahead of the player (never the player itself). */
  ahead: number;
  card: number;
  /** 0-based shard rank of members[0]. */
  start: number;
  /** The shard's entries at ranks [ahead - radius, ahead + radius], the player included. */
  members: KeyedMember[];
}

export interface ShardReaderOptions {
  shardId: string;
  /** The reader's own stamp of this shard (identity.ts): reads are answered only when the shard's heartbeat holds it. */
  stamp: string;
  redis: Redis;
  keyPrefix: string;
  /** The audit view these keys hold, if any (a missing heartbeat then reads NOT_FOUND). */
  view?: string;
  /** Send reads asked in one turn together (default true); false: each read as its own command, at once. */
  batch?: boolean;
}

export class ShardReader {
  readonly shardId: string;
  readonly stamp: string;
  readonly keys: KeyLayout;
  private readonly redis: Redis & ReadScripts;
  private readonly view: string | undefined;
  /** Reads asked in this turn of the event loop, sent together at its end (see above). */
  private queued: QueuedRead[] = [];
  private readonly batch: boolean;

  constructor(o: ShardReaderOptions) {
    this.shardId = o.shardId;
    this.stamp = o.stamp;
    this.keys = keyLayout(o.keyPrefix);
    this.redis = withReadScripts(o.redis);
    this.view = o.view;
    this.batch = o.batch ?? true;
  }

  /** The shard's best `count` entries of a board, and its size. */
  async top(board: string, count: number): Promise<TopResult> {
    const reply = await this.check(await (count <= BATCH_TOP_MAX ? this.queue(board, ["t", count]) : this.redis.ladderTop(this.keys.board(board), this.keys.heartbeat, this.stamp, count)));
    return { card: Number(reply[1]), members: pairs(reply, 2) };
  }

  /**
   * Where position (key, playerId) falls on this shard, with `radius` entries each side. The
   * router asks it of the shards that do not own playerId, at the key the owner's standing()
   * returned.
   */
  async window(board: string, key: number, playerId: string, radius: number): Promise<WindowResult> {
    const reply = await this.check(await this.queue(board, ["w", String(key), playerId, radius]));
    return { ahead: Number(reply[1]), card: Number(reply[2]), start: Number(reply[3]), members: pairs(reply, 4) };
  }

  /**
   * A player's standing on this shard, its owner: sort key, members ahead, board size and
   * `radius` entries each side, all read at one instant; undefined when it has no entry.
   */
  async standing(board: string, playerId: string, radius: number): Promise<StandingResult | undefined> {
    const reply = await this.check(await this.queue(board, ["s", playerId, radius]));
    if (reply[1] === undefined || reply[1] === null) return undefined;
    return { key: Number(reply[1]), ahead: Number(reply[2]), card: Number(reply[3]), start: Number(reply[4]), members: pairs(reply, 5) };
  }

  /** A player's sort key on a board, or undefined when it has none. */
  async entry(board: string, playerId: string): Promise<number | undefined> {
    const reply = await this.check(await this.queue(board, ["e", playerId]));
    return reply[1] === undefined || reply[1] === null ? undefined : Number(reply[1]);
  }

  /** The last applied offset of each of `partitions` (-1 where none): read-your-writes waits. */
  appliedOffsetsOf(partitions: readonly number[]): Promise<bigint[]> {
    return appliedOffsetsOf(this.redis, this.keys.offsets, partitions);
  }

  /** Queues one read (its kind and arguments as read-batch.lua takes them) for the end of this turn. */
  private queue(board: string, read: QueuedRead["read"]): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      if (!this.batch) return this.send([{ board: this.keys.board(board), read, resolve, reject }]);
      if (this.queued.push({ board: this.keys.board(board), read, resolve, reject }) === 1) process.nextTick(this.flush);
    });
  }

  /** Sends the queued reads: one alone as its own script, several as read-batch.lua (MAX_BATCH at most per command). */
  private readonly flush = (): void => {
    const all = this.queued;
    this.queued = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) this.send(all.slice(i, i + MAX_BATCH));
  };

  private send(reads: QueuedRead[]): void {
    const hb = this.keys.heartbeat;
    if (reads.length === 1) {
      const { board, read, resolve, reject } = reads[0]!;
      const r = this.redis;
      const sent = read[0] === "t" ? r.ladderTop(board, hb, this.stamp, read[1])
        : read[0] === "w" ? r.ladderWindow(board, hb, this.stamp, read[1], read[2], read[3])
        : read[0] === "s" ? r.ladderStanding(board, hb, this.stamp, read[1], read[2])
        : r.ladderEntry(board, hb, this.stamp, read[1]);
      sent.then(resolve, reject);
      return;
    }
    const args: Array<string | number> = [hb];
    for (const q of reads) args.push(q.board);
    args.push(this.stamp);
    for (const q of reads) args.push(...q.read);
    this.redis.ladderBatch(1 + reads.length, ...args).then(
      (reply) => {
        const status = Number(reply[0]);
        if (status === ReadStatus.OK) {
          for (let i = 0; i < reads.length; i++) reads[i]!.resolve(reply[i + 1] as Reply);
          return;
        }
        // refused: one look at the heartbeat explains it for every read of the batch
        void this.refusal(status).then((err) => {
          for (const q of reads) q.reject(err);
        });
      },
      (err: unknown) => {
        for (const q of reads) q.reject(err);
      },
    );
  }

  /** The reply when the shard answered; else the error its heartbeat explains (one more GET, failures only; one per batch). */
  private async check(reply: Reply): Promise<Reply> {
    if (Number(reply[0]) === ReadStatus.OK) return reply;
    throw await this.refusal(Number(reply[0]));
  }

  /** The error a refused read stands for, from the heartbeat key's value now. */
  private async refusal(status: number): Promise<LadderError> {
    const heartbeat = await this.redis.get(this.keys.heartbeat).catch(() => null);
    return readRefusal({ status, heartbeat, shardId: this.shardId, stamp: this.stamp, view: this.view });
  }
}

/** Most reads in one read-batch.lua call: bounds the time one script holds the shard's Redis. */
const MAX_BATCH = 64;
/** Tops of more entries than this are sent alone. */
const BATCH_TOP_MAX = 100;

interface QueuedRead {
  /** The board's key. */
  board: string;
  read: ["t", number] | ["w", string, string, number] | ["s", string, number] | ["e", string];
  resolve: (reply: Reply) => void;
  reject: (err: unknown) => void;
}

function pairs(reply: Reply, from: number): KeyedMember[] {
  const out: KeyedMember[] = [];
  for (let i = from; i + 1 < reply.length; i += 2) out.push({ playerId: String(reply[i]), key: Number(reply[i + 1]) });
  return out;
}
