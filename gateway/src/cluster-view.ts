/**
 * The two answers the gateway gets with its own token (LADDER_GATEWAY_TOKEN, admin role), since
 * the router serves them only to admins: the board list and the shards' health. What a caller gets
 * of them is a projection, public by design:
 *
 *   GET /api/boards   {boards: [{name, rules, createdAtMs}]}   AdminService.ListBoards: each defined
 *                     board's name and rules (order, ties, range, periods, windows, histogram bounds),
 *                     not what concerns writes (default operation, overrides, metadata limit);
 *   GET /api/status   {observedAtMs, shards: [{shardId, readiness, lagRecords, heartbeatAgeMs,
 *                     heartbeatTtlMs, keys, usedMemoryBytes}]}   AdminService.GetClusterStatus:
 *                     readiness, lag and size only (no refusal text, Redis addresses, nodes or Kafka).
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
import { BoardDefinitionSchema, ShardStatusSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { refuse } from "./http-errors.js";
import { Params } from "./params.js";
import type { ReadContext } from "./reads.js";

/** How long an answer is shared, ms. */
export const SHARED_MS = 1000;
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
  private readonly boardsAnswer: Shared<unknown>;
  private readonly statusAnswer: Shared<unknown>;

  constructor(private readonly client: LadderClient, token: string | undefined) {
    const admin = (what: string) => {
      if (token === undefined) throw refuse(Code.UNAVAILABLE, `the gateway has no token for ${what} (LADDER_GATEWAY_TOKEN)`);
      return { token };
    };
    this.boardsAnswer = new Shared(async () => {
      const res = await client.admin.listBoards({}, admin("the board list"));
      return { boards: res.boards.map((b) => pick(toJson(BoardDefinitionSchema, b, { alwaysEmitImplicit: true }), BOARD_FIELDS)) };
    });
    this.statusAnswer = new Shared(async () => {
      const res = await client.admin.getClusterStatus({}, admin("the shards' status"));
      return { observedAtMs: String(res.observedAtMs), shards: res.shards.map((s) => pick(toJson(ShardStatusSchema, s, { alwaysEmitImplicit: true }), SHARD_FIELDS)) };
    });
  }

  async boards(c: ReadContext): Promise<unknown> {
    new Params(c.search, []);
    await this.mayRead(c);
    return this.boardsAnswer.get();
  }

  async status(c: ReadContext): Promise<unknown> {
    new Params(c.search, []);
    await this.mayRead(c);
    return this.statusAnswer.get();
  }

  /** Throws the router's refusal of a read by this caller; resolves when it may read. */
  private async mayRead(c: ReadContext): Promise<void> {
    await this.client.leaderboard.listPeriods({ board: PROBE_BOARD }, { token: c.token, signal: c.signal }).catch((err: unknown) => {
      if (LadderError.from(err).code !== Code.NOT_FOUND) throw err;
    });
  }
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
