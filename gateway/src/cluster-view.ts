/**
 * The two answers the gateway gets with its own token (LADDER_GATEWAY_TOKEN, monitor role), since
 * the router serves them only to monitor and admin tokens: the board list and the shards' health. What a caller gets
 * of them is a projection, public by design:
 *
 *   GET /api/boards   {boards: [{name, rules, createdAtMs}], recent: [{name, lastReadMs}]}
 *                     AdminService.ListBoards: each defined board's name and rules (order, ties,
 *                     range, periods, windows, histogram bounds), not what concerns writes (default
 *                     operation, overrides, metadata limit); then the boards without a definition
 *                     that this gateway answered a read of lately (RECENT_BOARDS at most, the last
 *                     read first), so that the dashboard can list boards made by writes alone;
 *   GET /api/status   {observedAtMs, shards: [{shardId, readiness, lagRecords, heartbeatAgeMs,
 *                     heartbeatTtlMs, keys, usedMemoryBytes}]}   AdminService.GetClusterStatus:
 *                     readiness, lag and size only (no refusal text, Redis addresses, nodes or Kafka);
 *   GET /api/trends   the last minutes of the log's write rate, each shard's lag and a board's size
 *                     (trends.ts), sampled from the same status answer.
 *
 * The caller is held to the read rules all the same: before answering, the gateway makes a read
 * with the caller's token (ListPeriods of a board name, which touches no shard) and passes on a
 * refusal of it (UNAUTHENTICATED, PERMISSION_DENIED); only then does it use its own token. Both
 * answers are shared by the callers of one second (a dashboard polls the status; a thousand open
 * dashboards make one call a second, not a thousand).
 */
import { toJson } from "@bufbuild/protobuf";
import type { LadderClient } from "@ladder/client";
import { Code, LadderError } from "@ladder/model/errors";
import { BoardDefinitionSchema, type GetClusterStatusResponse, ShardStatusSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { refuse } from "./http-errors.js";
import { Params } from "./params.js";
import type { ReadContext } from "./reads.js";
import { type StatusReading, Trends } from "./trends.js";

/** How long an answer is shared, ms. */
export const SHARED_MS = 1000;
/** Boards without a definition listed by /api/boards, the most recently read. */
export const RECENT_BOARDS = 20;
/** The board a caller's read rights are checked with: any valid name does (a missing board is NOT_FOUND after the check). */
const PROBE_BOARD = "_";

const BOARD_FIELDS = ["name", "rules", "createdAtMs"] as const;
const SHARD_FIELDS = ["shardId", "readiness", "lagRecords", "heartbeatAgeMs", "heartbeatTtlMs", "keys", "usedMemoryBytes"] as const;

/** The fields `keys` of a proto3 JSON object. */
export function pick(o: unknown, keys: readonly string[]): Record<string, unknown> {
  const from = o as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in from).map((k) => [k, from[k]]));
}

export class ClusterView {
  private readonly boardsAnswer: Shared<{ boards: Record<string, unknown>[] }>;
  private readonly statusAnswer: Shared<GetClusterStatusResponse>;
  private readonly trendsOf = new Trends();
  /** Boards read through this gateway: name → last read, Unix ms (Map order: least recent first). */
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly client: LadderClient,
    token: string | undefined,
  ) {
    const admin = (what: string) => {
      if (token === undefined) throw refuse(Code.UNAVAILABLE, `the gateway has no token for ${what} (LADDER_GATEWAY_TOKEN)`);
      return { token };
    };
    this.boardsAnswer = new Shared(async () => {
      const res = await client.admin.listBoards({}, admin("the board list"));
      return { boards: res.boards.map((b) => pick(toJson(BoardDefinitionSchema, b, { alwaysEmitImplicit: true }), BOARD_FIELDS)) };
    });
    this.statusAnswer = new Shared(() => client.admin.getClusterStatus({}, admin("the shards' status")));
  }

  /** Notes a board read answered (not a refused one: a name nobody has written stays out of the list). */
  readAnswered(board: string): void {
    this.recent.delete(board);
    this.recent.set(board, Date.now());
    if (this.recent.size > 4 * RECENT_BOARDS) this.recent.delete(this.recent.keys().next().value!);
  }

  async boards(c: ReadContext): Promise<unknown> {
    new Params(c.search, []);
    await this.mayRead(c);
    const { boards } = await this.boardsAnswer.get();
    const defined = new Set(boards.map((b) => b.name));
    const recent = [...this.recent]
      .reverse()
      .filter(([name]) => !defined.has(name))
      .slice(0, RECENT_BOARDS);
    return { boards, recent: recent.map(([name, at]) => ({ name, lastReadMs: String(at) })) };
  }

  async status(c: ReadContext): Promise<unknown> {
    new Params(c.search, []);
    await this.mayRead(c);
    const res = await this.statusAnswer.get();
    return {
      observedAtMs: String(res.observedAtMs),
      shards: res.shards.map((s) => pick(toJson(ShardStatusSchema, s, { alwaysEmitImplicit: true }), SHARD_FIELDS)),
    };
  }

  /** /api/trends: the series of trends.ts, with a board's size when `board` is given. */
  async trends(c: ReadContext): Promise<unknown> {
    const p = new Params(c.search, ["board", "period", "window"]);
    await this.mayRead(c);
    const name = p.text("board");
    const where = { period: p.text("period"), window: p.text("window") };
    const size = async () =>
      Number((await this.client.leaderboard.getCount({ board: name, ...where }, { token: c.token, signal: c.signal })).total);
    return this.trendsOf.read(async () => statusReading(await this.statusAnswer.get()), name ? { name, ...where, size } : undefined);
  }

  /** Throws the router's refusal of a read by this caller; resolves when it may read. */
  private async mayRead(c: ReadContext): Promise<void> {
    await this.client.leaderboard.listPeriods({ board: PROBE_BOARD }, { token: c.token, signal: c.signal }).catch((err: unknown) => {
      if (LadderError.from(err).code !== Code.NOT_FOUND) throw err;
    });
  }
}

/** The log's end (every record acknowledged so far) and each shard's lag, from a status answer. */
export function statusReading(res: GetClusterStatusResponse): StatusReading {
  const ends = res.kafka?.endOffsets ?? [];
  const logEnd = ends.length ? ends.reduce((sum, e) => sum + Number(e.offset), 0) : null;
  return { logEnd, lag: Object.fromEntries(res.shards.map((s) => [s.shardId, s.lagRecords === undefined ? null : Number(s.lagRecords)])) };
}

/** One answer shared by every caller within SHARED_MS of the call that made it (and by those waiting for it). */
class Shared<T> {
  private last: { at: number; value: Promise<T> } | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  get(): Promise<T> {
    const now = performance.now();
    if (this.last && now - this.last.at < SHARED_MS) return this.last.value;
    const value = this.load();
    const entry = { at: now, value };
    this.last = entry;
    value.catch(() => {
      if (this.last === entry) this.last = undefined; // a failure is not shared beyond its own waiters
    });
    return value;
  }
}
