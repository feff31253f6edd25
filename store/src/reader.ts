/**
 * ShardReader: the read side of one shard's Redis, what the router runs. Every call is one
 * read-only script round trip that first checks the shard's heartbeat (read-header.lua)
 * against the reader's stamp (identity.ts): a shard whose node is not serving answers
 * UNAVAILABLE with the node's reason, one built from another topic, slots or board specs
 * FAILED_PRECONDITION saying what differs; never a stale, partial or misread board.
 */
import type { Redis } from "ioredis";
import type { KeyedMember } from "@ladder/common/score-encoding";
import { appliedOffsetsOf, keyLayout, type KeyLayout } from "./keys.js";
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
}

export class ShardReader {
  readonly shardId: string;
  readonly stamp: string;
  readonly keys: KeyLayout;
  private readonly redis: Redis & ReadScripts;
  private readonly view: string | undefined;

  constructor(o: ShardReaderOptions) {
    this.shardId = o.shardId;
    this.stamp = o.stamp;
    this.keys = keyLayout(o.keyPrefix);
    this.redis = withReadScripts(o.redis);
    this.view = o.view;
  }

  /** The shard's best `count` entries of a board, and its size. */
  async top(board: string, count: number): Promise<TopResult> {
    const reply = await this.check(await this.redis.ladderTop(this.keys.board(board), this.keys.heartbeat, this.stamp, count));
    return { card: Number(reply[1]), members: pairs(reply, 2) };
  }

  /**
   * Where position (key, playerId) falls on this shard, with `radius` entries each side. The
   * router asks it of the shards that do not own playerId, at the key the owner's standing()
   * returned.
   */
  async window(board: string, key: number, playerId: string, radius: number): Promise<WindowResult> {
    const reply = await this.check(await this.redis.ladderWindow(this.keys.board(board), this.keys.heartbeat, this.stamp, String(key), playerId, radius));
    return { ahead: Number(reply[1]), card: Number(reply[2]), start: Number(reply[3]), members: pairs(reply, 4) };
  }

  /**
   * A player's standing on this shard, its owner: sort key, members ahead, board size and
   * `radius` entries each side, all read at one instant; undefined when it has no entry.
   */
  async standing(board: string, playerId: string, radius: number): Promise<StandingResult | undefined> {
    const reply = await this.check(await this.redis.ladderStanding(this.keys.board(board), this.keys.heartbeat, this.stamp, playerId, radius));
    if (reply[1] === undefined || reply[1] === null) return undefined;
    return { key: Number(reply[1]), ahead: Number(reply[2]), card: Number(reply[3]), start: Number(reply[4]), members: pairs(reply, 5) };
  }

  /** A player's sort key on a board, or undefined when it has none. */
  async entry(board: string, playerId: string): Promise<number | undefined> {
    const reply = await this.check(await this.redis.ladderEntry(this.keys.board(board), this.keys.heartbeat, this.stamp, playerId));
    return reply[1] === undefined || reply[1] === null ? undefined : Number(reply[1]);
  }

  /** The last applied offset of each of `partitions` (-1 where none): read-your-writes waits. */
  appliedOffsetsOf(partitions: readonly number[]): Promise<bigint[]> {
    return appliedOffsetsOf(this.redis, this.keys.offsets, partitions);
  }

  /** The reply when the shard answered; else the error its heartbeat explains (one more GET, failures only). */
  private async check(reply: Reply): Promise<Reply> {
    if (Number(reply[0]) === ReadStatus.OK) return reply;
    const heartbeat = await this.redis.get(this.keys.heartbeat).catch(() => null);
    throw readRefusal({ status: Number(reply[0]), heartbeat, shardId: this.shardId, stamp: this.stamp, view: this.view });
  }
}

function pairs(reply: Reply, from: number): KeyedMember[] {
  const out: KeyedMember[] = [];
  for (let i = from; i + 1 < reply.length; i += 2) out.push({ playerId: String(reply[i]), key: Number(reply[i + 1]) });
  return out;
}
