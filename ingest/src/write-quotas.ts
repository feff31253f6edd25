/**
 * Write quotas at ingest: what a SubmitScores batch asks of the buckets (quota-buckets.ts).
 *
 * Every update counts one for its player and one for the caller's token (its grant's name), on
 * the cluster's quota (LADDER_QUOTA_*) and on the quota of each board it writes (its board and
 * also_boards; leave_board is no write), so a batch of 3 updates of one player asks 3 of that
 * player's bucket. The batch is admitted whole or refused whole: RESOURCE_EXHAUSTED with
 * `retryAfterMs` (the `retry-after-ms` trailer), nothing written. A batch that asks one bucket
 * for more than its burst could never fit and is INVALID_ARGUMENT instead, naming the limit.
 * Quotas are checked after the batch is valid and before it is queued; the tokens of an admitted
 * batch stay taken even if the log then fails it. Refusals count in
 * ladder_ingest_refused_calls_total{reason="quota"}.
 */
import type { ScoreUpdate } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { Code, invalidArgument, LadderError } from "@ladder/model/errors";
import { quotaOfDefinition, type Limit, type WriteQuota } from "@ladder/model/write-quota";
import { QuotaBuckets, type Ask } from "./quota-buckets.js";
import { ingestMetrics, type IngestMetrics } from "./metrics.js";

interface Tally {
  readonly limit: Limit;
  count: number;
  /** For messages: `player "p" on board "b"`. */
  readonly what: string;
  /** For messages: the setting that sets the limit. */
  readonly setting: string;
}

export class WriteQuotas {
  private readonly buckets: QuotaBuckets;

  private readonly refused: { inc(): void };

  constructor(
    private readonly cluster: WriteQuota,
    now?: () => number,
    metrics: IngestMetrics = ingestMetrics(),
  ) {
    this.buckets = new QuotaBuckets(now);
    this.refused = metrics.refusedCalls.labels("quota");
  }

  /** Admits a valid batch of `token`, or throws RESOURCE_EXHAUSTED (retry info) or INVALID_ARGUMENT. */
  admit(updates: readonly ScoreUpdate[], token: string, catalog: BoardCatalog): void {
    const tallies = new Map<string, Tally>();
    const count = (key: string, limit: Limit | undefined, what: string, setting: string) => {
      if (!limit) return;
      const t = tallies.get(key);
      if (t) t.count++;
      else tallies.set(key, { limit, count: 1, what, setting });
    };
    for (const u of updates) {
      count(`p\0${u.playerId}`, this.cluster.player, `player "${u.playerId}"`, "LADDER_QUOTA_PLAYER_BURST");
      count(`t\0${token}`, this.cluster.token, `token "${token}"`, "LADDER_QUOTA_TOKEN_BURST");
      for (const board of [u.board, ...u.alsoBoards]) {
        const quota = quotaOfDefinition(catalog.definition(board)?.quota);
        if (!quota) continue;
        const on = `on board "${board}"`;
        count(`bp\0${board}\0${u.playerId}`, quota.player, `player "${u.playerId}" ${on}`, `board "${board}" quota.player_burst`);
        count(`bt\0${board}\0${token}`, quota.token, `token "${token}" ${on}`, `board "${board}" quota.token_burst`);
      }
    }
    if (tallies.size === 0) return;
    const asks: Ask[] = [];
    for (const [key, t] of tallies) {
      if (t.count > t.limit.burst)
        throw invalidArgument(
          `updates: this batch holds ${t.count} updates of ${t.what}, more than its quota's burst ${t.limit.burst} (${t.setting}): it can never fit; send smaller batches`,
        );
      asks.push({ key, limit: t.limit, count: t.count });
    }
    const taken = this.buckets.take(asks);
    if ("ask" in taken) {
      this.refused.inc();
      const t = tallies.get(taken.ask.key)!;
      throw new LadderError(
        Code.RESOURCE_EXHAUSTED,
        `write quota of ${t.what} spent (${t.limit.perSecond} updates/s, burst ${t.limit.burst}): retry in ${taken.retryAfterMs} ms; nothing of this batch was written`,
        { retriable: true, retryAfterMs: taken.retryAfterMs },
      );
    }
  }
}
