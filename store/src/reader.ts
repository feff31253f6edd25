/**
 * ShardReader: the read side of one shard's Redis, what the router runs. Every call is one
 * read-only script round trip that first checks the shard's heartbeat (read-header.lua)
 * against the reader's stamp (identity.ts): a shard whose node is not serving answers
 * UNAVAILABLE with the node's reason, one built from another topic, slots or board specs
 * FAILED_PRECONDITION saying what differs; never a stale, partial or misread board.
 *
 * READS THAT ARRIVE TOGETHER GO TOGETHER. A router under load asks each shard many small reads
 * at once (every rank asks the owner, then every other shard). A reader queues the reads it is
 * asked in one turn of the event loop and, at the end of that turn (platform/src/end-of-turn.ts:
 * after every socket the turn found readable was read and the promise callbacks of what it read
 * ran, and after the router's rank batches of the turn queued their reads), sends
 * them as one command: alone, the read's own script; two or more, read-batch.lua, which checks
 * the heartbeat once and runs each read's own function, all at one instant, replying what each
 * script would have. Nothing waits for company: a read alone is sent at the end of the turn that
 * asked it. (At the end of each callback instead, process.nextTick, every rank's first read went
 * alone: each request arrives in a callback of its own. Under h2load's GetRank load the owner's
 * Redis then ran one command per rank; a turn gathers about 28.) A batch holds at most MAX_BATCH
 * reads, and tops deeper than BATCH_TOP_MAX entries are always sent alone (their cost is their
 * own). Per read this saves a command's encoding, parsing and promise plumbing in the router
 * (ioredis) and in Redis, which the router's CPU profile under rank load showed as its largest
 * cost after gRPC.
 * A reader made with `batch: false` sends each read at once, alone. The router's readers of a
 * replicated shard batch too, one reader per node: the reads of a turn that land on a node go as
 * one command there.
 *
 * READS THAT MUST SEE ONE INSTANT. A caller that needs several reads of one shard at the same
 * instant (a page and what ranks its ties: router/src/read/page-ties.ts) asks them inside
 * atOnce(): they form one unit that a batch never splits, sent as one command even by a reader
 * made with `batch: false`, and on one node of a replicated shard.
 */
import type { Redis } from "ioredis";
import { atEndOfTurn } from "@ladder/platform/end-of-turn";
import type { KeyedMember, TieScale, TieValue } from "@ladder/model/score-encoding";
import { appliedOffsetsOf, keyLayout, type KeyLayout } from "./keys.js";
import { recordCountBucketsOf } from "./identity.js";
import { recordCountBucket } from "@ladder/model/record-counts";
import { COLUMN_SEPARATOR } from "@ladder/model/columns";
import { Code, LadderError } from "@ladder/model/errors";
import { readRefusal, ReadStatus, servesReads, withReadScripts, type ReadScripts, type Reply } from "./scripts.js";

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

/** Several players' standings and counts at positions, read at one instant (ShardReader.ranks). */
export interface RanksResult {
  card: number;
  /** Per player asked: its key, the members ahead of it and its metadata; undefined when it has no entry. */
  own: Array<{ key: number; ahead: number; metadata: string; member?: string } | undefined>;
  /** Per position asked: the members strictly ahead of it. */
  aheadOf: number[];
}

/** What a shard holds of one player (ShardReader.playerData). */
export interface PlayerData {
  /** Its records the shard applied (apply-records.lua). */
  records: number;
  /** Its entries: the stored board name (no prefix), the sort key, whether hidden, the metadata ('' none). */
  entries: Array<{ stored: string; key: number; member?: string; hidden: boolean; metadata: string }>;
}

/** The entries after (or before) a position (ShardReader.after). */
export interface AfterResult {
  card: number;
  /** 0-based shard rank of members[0]. */
  start: number;
  /** Members strictly ahead of the position. */
  ahead: number;
  members: KeyedMember[];
}

/** What a rank index's copy of a board checks itself against (ShardReader.indexProbe), read at one instant. */
export interface IndexProbe {
  card: number;
  moving: boolean;
  changeId: string;
  changeGen: string;
  metadata: boolean;
}

/** What ranks the ties of a page, read at the instant of the page's part on one shard (ShardReader.ties; router/src/read/page-ties.ts). */
export interface WindowTies {
  /** The anchor's tie value (its points index, or on a board with columns its column part); -1 when there is no anchor (the read before listed no entry). */
  anchor: TieValue;
  /** The members whose tie value is below the anchor's. */
  below: number;
  /** With a cap: the distinct tie values up to the anchor's (included), ascending, at most cap + 1; else empty. */
  distinct: TieValue[];
}

/** A player's standing on the shard that owns it, read at one instant (read-standing.lua). */
export interface StandingResult {
  /** The player's sort key. */
  key: number;
  /** On a board with columns (model/src/columns.ts): the player's member, its position with key 0. */
  member?: string;
  /** The player's metadata ("" when none). */
  metadata: string;
  /** Members of this shard ranked strictly ahead of the player (never the player itself). */
  ahead: number;
  card: number;
  /** 0-based shard rank of members[0]. */
  start: number;
  /** The shard's entries at ranks [ahead - radius, ahead + radius], the player included. */
  members: KeyedMember[];
}

/** The reads a caller may ask inside ShardReader.atOnce(), all answered at one instant. */
export type InstantReads = Pick<ShardReader, "top" | "window" | "standing" | "entry" | "ranks" | "distinct" | "ties" | "after">;

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
  /** Hashes per slot of the counts of records: the stamp's (identity.ts). */
  private readonly recordCountBuckets: number;
  /** Reads asked in this turn of the event loop, sent together at its end (see above); a unit of atOnce() is one element. */
  private queued: Array<QueuedRead | QueuedRead[]> = [];
  private readonly batch: boolean;
  /** The unit atOnce() is gathering, while its reads are asked. */
  private gathering: QueuedRead[] | undefined;
  /** This reader's options, for the plain reader that atOnce() of a subclass gathers with. */
  private readonly given: ShardReaderOptions;
  private plainReader: ShardReader | undefined;

  constructor(o: ShardReaderOptions) {
    this.shardId = o.shardId;
    this.stamp = o.stamp;
    this.recordCountBuckets = recordCountBucketsOf(o.stamp);
    this.keys = keyLayout(o.keyPrefix);
    this.redis = withReadScripts(o.redis);
    this.view = o.view;
    this.batch = o.batch ?? true;
    this.given = o;
  }

  /**
   * The reads `reads` asks of its argument (synchronously, as `(r) => Promise.all([r.window(…),
   * r.ranks(…)])` does), answered at one instant: one command, never split (see above).
   * Subclasses that route or retry reads route or retry the whole unit.
   */
  atOnce<T>(reads: (r: InstantReads) => Promise<T>): Promise<T> {
    // a subclass's own read methods route each read apart: a plain reader over the same Redis gathers
    if (Object.getPrototypeOf(this) !== ShardReader.prototype) {
      this.plainReader ??= new ShardReader(this.given);
      return this.plainReader.atOnce(reads);
    }
    if (this.gathering) return reads(this); // inside another unit: part of it
    const unit: QueuedRead[] = [];
    this.gathering = unit;
    let answered: Promise<T>;
    try {
      answered = reads(this);
    } finally {
      this.gathering = undefined;
    }
    if (unit.length > 0) {
      if (!this.batch) this.send(unit);
      else if (this.queued.push(unit) === 1) atEndOfTurn(this.flush);
    }
    return answered;
  }

  /** The shard's best `count` entries of a board, and its size. */
  async top(board: string, count: number): Promise<TopResult> {
    const reply = await this.check(
      await (count <= BATCH_TOP_MAX || this.gathering
        ? this.queue(board, ["t", count])
        : this.redis.ladderTop(this.keys.board(board), this.keys.heartbeat, this.stamp, count)),
    );
    return { card: Number(reply[1]), members: entries(reply, 2) };
  }

  /**
   * Where position (key, playerId) falls on this shard, with `radius` entries each side. The
   * router asks it of the shards that do not own playerId, at the key the owner's standing()
   * returned.
   */
  async window(board: string, key: number, playerId: string, radius: number): Promise<WindowResult> {
    const reply = await this.check(await this.queue(board, ["w", String(key), playerId, radius]));
    return { ahead: Number(reply[1]), card: Number(reply[2]), start: Number(reply[3]), members: entries(reply, 4) };
  }

  /**
   * A player's standing on this shard, its owner: sort key, members ahead, board size and
   * `radius` entries each side, all read at one instant; undefined when it has no entry.
   */
  async standing(board: string, playerId: string, radius: number): Promise<StandingResult | undefined> {
    const reply = await this.check(await this.queue(board, ["s", playerId, radius]));
    if (reply[1] === undefined || reply[1] === null) return undefined;
    return {
      ...parseKey(reply[1]),
      ahead: Number(reply[2]),
      card: Number(reply[3]),
      metadata: String(reply[4]),
      start: Number(reply[5]),
      members: entries(reply, 6),
    };
  }

  /** A player's sort key on a board, or undefined when it has none. */
  async entry(board: string, playerId: string): Promise<number | undefined> {
    const reply = await this.check(await this.queue(board, ["e", playerId]));
    return reply[1] === undefined || reply[1] === null ? undefined : Number(reply[1]);
  }

  /**
   * At one instant: the standing on this shard of each of `players` (its key, or undefined when it
   * has none; the members ahead of it; its metadata) and the members strictly ahead of each of
   * `positions` (a position with playerId "" counts the keys strictly below its key).
   */
  async ranks(board: string, players: readonly string[], positions: readonly KeyedMember[]): Promise<RanksResult> {
    const read: QueuedRead["read"] = [
      "r",
      players.length,
      ...players,
      positions.length,
      ...positions.flatMap((p) => [String(p.key), p.member ?? p.playerId]),
    ];
    return ranksOf(await this.check(await this.queue(board, read)), players.length, positions.length);
  }

  /**
   * ranks(), and at the same instant the id of the newest entry of this shard's change stream
   * ("0-0" when none) and the stream's generation ("" when none): what those ranks stand at in the
   * shard's changes (router/src/push).
   */
  async ranksAt(
    board: string,
    players: readonly string[],
    positions: readonly KeyedMember[],
  ): Promise<RanksResult & { changeId: string; changeGen: string }> {
    const read: QueuedRead["read"] = [
      "P",
      players.length,
      ...players,
      positions.length,
      ...positions.flatMap((p) => [String(p.key), p.member ?? p.playerId]),
    ];
    const reply = await this.check(await this.queue(board, read));
    return { ...ranksOf(reply, players.length, positions.length), changeId: String(reply.at(-2)), changeGen: String(reply.at(-1) ?? "") };
  }

  /**
   * The distinct tie values of the board below `bound`, ascending, at most cap + 1: points indexes (key ÷
   * units, rounded down), or on a board with columns column parts (model/src/score-encoding.ts, TieValue).
   */
  async distinct(board: string, scale: TieScale, bound: TieValue, cap: number): Promise<TieValue[]> {
    if ("width" in scale) return (await this.check(await this.queue(board, ["D", scale.width, bound, cap]))).slice(1).map(String);
    const reply = await this.check(await this.queue(board, ["d", scale.units, bound, cap]));
    return reply.slice(1).map(Number);
  }

  /**
   * What ranks the ties of a page (router/src/read/page-ties.ts), asked inside atOnce() right after
   * the read of the page's part on this shard: the ANCHOR is sort key `anchor`, or with "first" the
   * first entry that read listed (none: anchor -1); the members whose points index (key ÷ units,
   * rounded down) is below the anchor's, and with cap > 0 the distinct points indexes up to the
   * anchor's, at most cap + 1.
   */
  async ties(board: string, scale: TieScale, anchor: KeyedMember | "first", cap: number): Promise<WindowTies> {
    if (!this.gathering) throw new Error("ShardReader.ties() is asked inside atOnce(), with the read of the page it ranks");
    if ("width" in scale) {
      // a board with columns: the anchor is a member, tie values are column parts (-1: no anchor)
      const at = anchor === "first" ? "" : (anchor.member ?? anchor.playerId);
      const reply = await this.check(await this.queue(board, ["G", scale.width, at, cap]));
      const none = Number(reply[1]) === -1 && typeof reply[1] === "number";
      return { anchor: none ? -1 : String(reply[1]), below: Number(reply[2]), distinct: reply.slice(3).map(String) };
    }
    const reply = await this.check(await this.queue(board, ["g", scale.units, anchor === "first" ? "" : String(anchor.key), cap]));
    return { anchor: Number(reply[1]), below: Number(reply[2]), distinct: reply.slice(3).map(Number) };
  }

  /** The `count` entries after position `from` (or before it, `backward`), the members ahead of it, and the board's size on this shard. */
  async after(board: string, from: KeyedMember, count: number, backward: boolean): Promise<AfterResult> {
    const reply = await this.check(await this.queue(board, ["a", String(from.key), from.member ?? from.playerId, count, backward ? 1 : 0]));
    return { card: Number(reply[1]), start: Number(reply[2]), ahead: Number(reply[3]), members: entries(reply, 4) };
  }

  /** A board key's histogram on this shard (apply-events.lua): its size and each stored bucket's count (buckets without entries absent). */
  async histogram(board: string): Promise<{ card: number; counts: Map<number, number> }> {
    const reply = await this.check(await this.queue(board, ["h"]));
    const counts = new Map<number, number>();
    for (let i = 2; i + 1 < reply.length; i += 2) counts.set(Number(reply[i]), Number(reply[i + 1]));
    return { card: Number(reply[1]), counts };
  }

  /** The counts around stored bucket j of a board key's histogram on this shard, and its size: 4 numbers, whatever the buckets. */
  async histogramAt(board: string, j: number): Promise<{ card: number; better: number; inBucket: number }> {
    const reply = await this.check(await this.queue(board, ["H", j]));
    return { card: Number(reply[1]), better: Number(reply[2]), inBucket: Number(reply[3]) };
  }

  /**
   * What a router's copy of a board checks itself against (router/src/rank-index), at one instant:
   * the board's size as its sorted set holds it, whether a move sets players aside on this shard,
   * the change stream's newest id and generation, as ranksAt() gives them, and whether the board
   * keeps metadata (which the change stream does not carry).
   */
  async indexProbe(board: string): Promise<IndexProbe> {
    const reply = await this.check(await this.queue(board, ["I"]));
    return {
      card: Number(reply[1]),
      moving: Number(reply[2]) === 1,
      changeId: String(reply[3]),
      changeGen: String(reply[4] ?? ""),
      metadata: Number(reply[5]) === 1,
    };
  }

  /** The moderation actions' audit lines of this shard (read-audit.lua), newest first, at most `limit`; '' matches any player or board. */
  async audit(playerId: string, board: string, limit: number): Promise<string[]> {
    const reply = await this.check(await this.redis.ladderAudit(this.keys.audit, this.keys.heartbeat, this.stamp, playerId, board, limit));
    return reply.slice(1).map(String);
  }

  /**
   * Everything this shard holds of a player (read-player.lua): its count of records and its
   * entries, hidden ones marked. `slot`: the player's (its count is kept by the slot of its
   * records, in the bucket the stamp's bucket count gives: model/src/record-counts.ts).
   */
  async playerData(playerId: string, slot: number): Promise<PlayerData> {
    const counts = this.keys.recordCounts(slot, recordCountBucket(playerId, this.recordCountBuckets));
    const reply = await this.check(await this.redis.ladderPlayer(this.keys.heartbeat, counts, this.stamp, playerId, this.keys.board("")));
    const entries: PlayerData["entries"] = [];
    for (let i = 2; i + 3 < reply.length; i += 4)
      entries.push({
        stored: String(reply[i]),
        ...parseKey(reply[i + 1]),
        hidden: Number(reply[i + 2]) === 1,
        metadata: String(reply[i + 3]),
      });
    return { records: Number(reply[1]), entries };
  }

  /**
   * A tournament on this shard (read-tournament.lua), by its period key's stored name: the members
   * its joins admitted here (the shard of its join partition holds them all), whether `playerId` is
   * one, and the player's attempts used (-1: none recorded; its own shard holds them).
   */
  async tournament(stored: string, playerId: string): Promise<{ members: number; joined: boolean; attempts: number }> {
    const key = this.keys.board(stored);
    const reply = await this.check(
      await this.redis.ladderTournament(this.keys.heartbeat, `${key}!join`, `${key}!att`, this.stamp, playerId),
    );
    return { members: Number(reply[1]), joined: Number(reply[2]) === 1, attempts: Number(reply[3]) };
  }

  /**
   * A league's period on this shard (read-league.lua), by the league's stored name (its name and
   * generation) and the period's name: `playerId`'s cohort code and tier score (-1: none), whether
   * the period's close is settled, and the players placed per group ("t<tier>b<bracket>"). The
   * shard of the league's partition holds them all (model/src/leagues.ts).
   */
  async league(
    stored: string,
    period: string,
    playerId: string,
  ): Promise<{ code: number; tier: number; settled: boolean; groups: Array<{ group: string; players: number }> }> {
    const league = this.keys.board(stored);
    const key = `${league}@${period}`;
    const reply = await this.check(
      await this.redis.ladderLeague(
        this.keys.heartbeat,
        `${key}!place`,
        `${key}!fill`,
        `${league}!tier`,
        `${league}!settled`,
        this.stamp,
        playerId,
        period,
      ),
    );
    const groups: Array<{ group: string; players: number }> = [];
    for (let i = 4; i + 1 < reply.length; i += 2) groups.push({ group: String(reply[i]), players: Number(reply[i + 1]) });
    return { code: Number(reply[1]), tier: Number(reply[2]), settled: Number(reply[3]) === 1, groups };
  }

  /**
   * Members as a team deriver reads them on their own shard (read-team-source.lua; model/src/teams.ts):
   * per member of `members` (a team board's and its source's stored names, the player, its
   * partition), its team ("" none), the teams it left, its sort key on the source board (undefined:
   * no entry) and its partition's applied offset (-1n: none), all at one instant.
   */
  async teamSources(
    members: ReadonlyArray<{ teamBoard: string; source: string; playerId: string; partition: number }>,
  ): Promise<Array<{ team: string; left: string[]; key: number | undefined; asOf: bigint }>> {
    const args = members.flatMap((m) => [m.teamBoard, m.source, m.playerId, String(m.partition)]);
    const reply = await this.check(
      await this.redis.ladderTeamSource(this.keys.heartbeat, this.keys.offsets, this.stamp, this.keys.board(""), ...args),
    );
    return members.map((_, i) => {
      const [team, key, left, offset] = reply.slice(1 + i * 4, 5 + i * 4).map(String) as [string, string, string, string];
      return { team, left: left === "" ? [] : left.split("\n"), key: key === "" ? undefined : Number(key), asOf: BigInt(offset) };
    });
  }

  /**
   * A team on this shard (read-team.lua), by the team board's stored name: its entry's sort key
   * (undefined: none) and its members' contributions, at one instant.
   */
  async team(stored: string, team: string): Promise<{ key: number | undefined; members: Array<{ playerId: string; points: number }> }> {
    const board = this.keys.board(stored);
    const reply = await this.check(await this.redis.ladderTeam(this.keys.heartbeat, board, `${board}!m:${team}`, this.stamp, team));
    const members: Array<{ playerId: string; points: number }> = [];
    for (let i = 2; i + 1 < reply.length; i += 2) members.push({ playerId: String(reply[i]), points: Number(reply[i + 1]) });
    return { key: reply[1] === "" ? undefined : Number(reply[1]), members };
  }

  /** What the apply script decided of a tournament write or a league placement with report id `id` (apply-tournaments.lua, apply-leagues.lua), null when nothing is kept. */
  outcome(id: string): Promise<string | null> {
    return this.redis.get(this.keys.outcome(id));
  }

  /** A rank report's positions as the apply script kept them (apply-events.lua): 6 strings per board; empty when none is kept. */
  rankReport(id: string): Promise<string[]> {
    return this.redis.lrange(this.keys.rankChange(id), 0, -1);
  }

  /**
   * The partitions of this shard that applied the close marker of a period, named by its stored
   * name (storedBoardName with the period): the members "<stem>\n<partition>" of the markers set
   * (apply-deletion.lua). One ZRANGEBYLEX, O(log n + partitions). The router's closer asks it.
   */
  async closedPartitions(stem: string): Promise<number[]> {
    const members = await this.redis.zrangebylex(this.keys.deletedBoards, `[${stem}\n`, `(${stem}\v`);
    return members.map((m) => Number(m.slice(stem.length + 1)));
  }

  /**
   * The players of a board key (a period's, by its stored name) whose latest event is before
   * `cutoffMs` ("<key>!seen": apply-retention.lua). One ZCOUNT. The router's retainer asks it.
   */
  inactiveCount(board: string, cutoffMs: number): Promise<number> {
    return this.redis.zcount(`${this.keys.board(board)}!seen`, "-inf", `(${cutoffMs}`);
  }

  /**
   * The trim floors of a board key (a period's, by its stored name) on this shard, one per
   * partition that applied a trim ("<key>!floor": apply-retention.lua), as sort key and player.
   * One ZRANGE. GetBoard reports the highest.
   */
  async floors(board: string): Promise<Array<{ key: number; playerId: string }>> {
    const members = await this.redis.zrange(`${this.keys.board(board)}!floor`, "0", "-1");
    return members.map((m) => {
      const [, key, playerId] = /^[^\n]*\n([^\n]*)\n(.*)$/s.exec(m)!;
      return { key: Number(key), playerId: playerId! };
    });
  }

  /** The last applied offset of each of `partitions` (-1 where none): read-your-writes waits. */
  appliedOffsetsOf(partitions: readonly number[]): Promise<bigint[]> {
    return appliedOffsetsOf(this.redis, this.keys.offsets, partitions);
  }

  /**
   * The last applied offset of each of `partitions` (-1 where none) and whether the shard node says it
   * serves (its heartbeat is there and gives no reason not to), in one round trip: ingest's lag
   * admission (ingest/src/lag-admission.ts).
   */
  async progress(partitions: readonly number[]): Promise<{ applied: bigint[]; serving: boolean }> {
    const [[offsetsErr, raw], [heartbeatErr, heartbeat]] = (await this.redis
      .pipeline()
      .hmget(this.keys.offsets, ...partitions.map(String))
      .get(this.keys.heartbeat)
      .exec()) as [[Error | null, Array<string | null>], [Error | null, string | null]];
    if (offsetsErr) throw offsetsErr;
    if (heartbeatErr) throw heartbeatErr;
    return { applied: raw.map((o) => (o === null ? -1n : BigInt(o))), serving: servesReads(heartbeat) };
  }

  /** Queues one read (its kind and arguments as read-batch.lua takes them) for the end of this turn. */
  private queue(board: string, read: QueuedRead["read"]): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      if (this.gathering) return void this.gathering.push({ board: this.keys.board(board), read, resolve, reject });
      if (!this.batch) return this.send([{ board: this.keys.board(board), read, resolve, reject }]);
      if (this.queued.push({ board: this.keys.board(board), read, resolve, reject }) === 1) atEndOfTurn(this.flush);
    });
  }

  /** Sends the queued reads: one alone as its own script, several as read-batch.lua (MAX_BATCH at most per command, a unit never split). */
  private readonly flush = (): void => {
    const all = this.queued;
    this.queued = [];
    let batch: QueuedRead[] = [];
    for (const q of all) {
      const reads = Array.isArray(q) ? q : [q];
      if (batch.length > 0 && batch.length + reads.length > MAX_BATCH) {
        this.send(batch);
        batch = [];
      }
      batch.push(...reads);
    }
    if (batch.length > 0) this.send(batch);
  };

  private send(reads: QueuedRead[]): void {
    const hb = this.keys.heartbeat;
    if (reads.length === 1 && OWN_SCRIPT.has(reads[0]!.read[0])) {
      const { board, read, resolve, reject } = reads[0]!;
      const r = this.redis;
      const sent =
        read[0] === "t"
          ? r.ladderTop(board, hb, this.stamp, read[1])
          : read[0] === "w"
            ? r.ladderWindow(board, hb, this.stamp, read[1], read[2], read[3])
            : read[0] === "s"
              ? r.ladderStanding(board, hb, this.stamp, read[1], read[2])
              : r.ladderEntry(board, hb, this.stamp, String(read[1]));
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
        // refused: its figures, or one look at the heartbeat, explain it for every read of the batch
        void this.refusal(reply as Reply).then((err) => {
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
    throw await this.refusal(reply);
  }

  /** The error a refused read's reply stands for: its figures (not current), else the heartbeat key's value now. */
  private async refusal(reply: Reply): Promise<LadderError> {
    const status = Number(reply[0]);
    const o = { status, shardId: this.shardId, stamp: this.stamp, view: this.view };
    if (status === ReadStatus.NOT_CURRENT)
      return readRefusal({ ...o, heartbeat: null, notCurrent: { ageMs: Number(reply[1]), boundMs: Number(reply[2]) } });
    // a GET that failed says nothing of the heartbeat: not "no heartbeat" (for a view, NOT_FOUND)
    let heartbeat: string | null;
    try {
      heartbeat = await this.redis.get(this.keys.heartbeat);
    } catch (err) {
      return new LadderError(
        Code.UNAVAILABLE,
        `${this.shardId}: a read was refused (status ${status}) and the shard's heartbeat could not be read: ${(err as Error).message}`,
        { retriable: true, cause: err },
      );
    }
    return readRefusal({ ...o, heartbeat });
  }
}

/** Most reads in one read-batch.lua call: bounds the time one script holds the shard's Redis. */
const MAX_BATCH = 64;
/** Tops of more entries than this are sent alone. */
const BATCH_TOP_MAX = 100;

/** The reads that have a script of their own (the others go through read-batch.lua, even alone). */
const OWN_SCRIPT = new Set(["t", "w", "s", "e"]);

interface QueuedRead {
  /** The board's key. */
  board: string;
  read:
    | ["t", number]
    | ["w", string, string, number]
    | ["s", string, number]
    | ["e", string]
    | ["d" | "D", number, number | string, number]
    | ["g" | "G", number, string, number]
    | ["a", string, string, number, number]
    | ["h"]
    | ["H", number]
    | ["I"]
    | ["r" | "P", ...Array<string | number>];
  resolve: (reply: Reply) => void;
  reject: (err: unknown) => void;
}

/** A ranks read's reply (read_ranks in read-header.lua) for `players` players and `positions` positions. */
function ranksOf(reply: Reply, players: number, positions: number): RanksResult {
  const withMeta = Number(reply[2]) === 1;
  const step = withMeta ? 3 : 2;
  const own = Array.from({ length: players }, (_, i) => {
    const at = 3 + i * step;
    const key = reply[at];
    return key === null || key === undefined
      ? undefined
      : { ...parseKey(key), ahead: Number(reply[at + 1]), metadata: withMeta ? String(reply[at + 2]) : "" };
  });
  const from = 3 + players * step;
  return { card: Number(reply[1]), own, aheadOf: Array.from({ length: positions }, (_, i) => Number(reply[from + i])) };
}

/**
 * A sort key as the read scripts answer it: a number, or on a board with columns the entry's member
 * (read-header.lua's key_reply), whose sort key is 0: the member is then its position.
 */
function parseKey(x: unknown): { key: number; member?: string } {
  const s = String(x);
  return s.includes(COLUMN_SEPARATOR) ? { key: 0, member: s } : { key: Number(s) };
}

/** An entry as read: a member of a board with columns ("<order part>\x1f<player>") keeps its member. */
function member(m: string, key: number, metadata?: string): KeyedMember {
  const at = m.indexOf(COLUMN_SEPARATOR);
  const e: KeyedMember = at < 0 ? { playerId: m, key } : { playerId: m.slice(at + 1), key, member: m };
  if (metadata !== undefined) e.metadata = metadata;
  return e;
}

/** The entries of a read reply from index `from`: a flag (1: each entry also carries its metadata), then member, key[, metadata] each. */

function entries(reply: Reply, from: number): KeyedMember[] {
  const out: KeyedMember[] = [];
  if (Number(reply[from]) === 1) {
    for (let i = from + 1; i + 2 < reply.length; i += 3) out.push(member(String(reply[i]), Number(reply[i + 1]), String(reply[i + 2])));
  } else {
    for (let i = from + 1; i + 1 < reply.length; i += 2) out.push(member(String(reply[i]), Number(reply[i + 1])));
  }
  return out;
}
