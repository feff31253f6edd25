/**
 * The retainer: trims the boards that keep their top N and expires their inactive players
 * (BoardRules.keep_top, keep_margin, expire_inactive_ms; the rules and why they are honest:
 * model/src/retention.ts).
 *
 * Every router runs one. Every LADDER_RETENTION_INTERVAL_MS it looks at each board with retention
 * (the board itself, without periods; never a closed period: its standings are final):
 *
 *   keep_top   every kept period (late events land in past ones): its size (one ZCARD per shard),
 *              and past keep_top + keep_margin the entry at that position, read with the exact
 *              select-by-rank merge (router/src/read/select.ts) on the primaries. One TRIM record
 *              with that entry as the floor goes to every partition of the score log.
 *   expiry     the current period: the players whose latest event is older than the cut-off (this
 *              router's clock minus expire_inactive_ms), counted on every shard (one ZCOUNT each).
 *              When there are any, one EXPIRE record with the cut-off goes to every partition.
 *
 * Then it waits until the shards applied the records, so the next look sees their effect.
 *
 * WHATEVER RUNS IT. The records are the state, and a shard applies them in log order with the
 * players' writes: the same records at the same offsets give the same boards on every replay.
 * Two routers trimming at once write two trims; a partition's floor only rises, so the second
 * removes what the first left above its own floor or nothing. A retainer that dies midway leaves
 * some partitions without the record: the next look (by any router) finds the period still past
 * its size and writes a trim to every partition again. Expiries alike: each removes what is
 * older than its own cut-off.
 *
 * COSTS. Per board and look: one ZCARD per shard per kept period, one select-by-rank read (O(log n)
 * per shard and probe) per period to trim, and one ZCOUNT per shard; per trim or expiry, one record
 * per partition, and on the shards one pass over the entries past the floor (or the inactive
 * players) per partition (apply-retention.lua).
 */
import { create } from "@bufbuild/protobuf";
import type { BoardDefinitions } from "@ladder/log/board-definitions-follower";
import type { RecordProducer } from "@ladder/log/record-producer";
import { storedBoardName, type BoardSpec } from "@ladder/model/board-spec";
import { closeTimeOf } from "@ladder/model/closes";
import { encodeModeration } from "@ladder/model/moderation";
import { keptPeriods, periodAt } from "@ladder/model/periods";
import { keptSize } from "@ladder/model/retention";
import { encodeSortKey } from "@ladder/model/score-encoding";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import { ModerationAction, ModerationSchema, type Moderation } from "@ladder/proto/leaderboard/v1/moderation_pb";
import type { Logger } from "@ladder/platform/logger";
import type { Queries } from "../read/queries.js";
import type { ShardPool } from "../read/shard-pool.js";
import { waitApplied } from "../read/wait-applied.js";

export interface RetainerDeps {
  definitions: BoardDefinitions;
  pool: ShardPool;
  scoreTopic: string;
  partitions: number;
  /** A producer (connected on first use). */
  producer: () => Promise<RecordProducer>;
  /** Reads of the live boards on the primaries, without caches. */
  queries: Queries;
  /** Between two looks, ms (LADDER_RETENTION_INTERVAL_MS). */
  intervalMs: number;
  log: Logger;
  clock?: () => number;
}

/** How long a look waits for the records it wrote to be applied: 30 s. */
const APPLY_WAIT_MS = 30_000;
/** Who the retainer's records name ("by" of the audit trail). */
export const RETAINER = "retention";

export interface Retainer {
  /** Stops looking; resolves once the look under way (if any) ended. */
  stop(): Promise<void>;
}

export function startRetainer(d: RetainerDeps): Retainer {
  const clock = d.clock ?? Date.now;
  let stopping = false;
  let wake: (() => void) | undefined;

  const look = async (): Promise<void> => {
    for (const def of d.definitions.catalog.list()) {
      const spec = d.definitions.catalog.forBoard(def.name);
      if (stopping || !def.rules || !spec || (spec.retention.keepTop === 0 && spec.retention.expireInactiveMs === 0)) continue;
      const now = clock();
      // the kept periods not closed (their standings final), the current one first; the board itself without periods
      const open =
        spec.period.kind === "none"
          ? [""]
          : keptPeriods(spec.period, now)
              .filter((p) => {
                const closeAt = closeTimeOf(spec.period, p);
                return closeAt === undefined || now < closeAt;
              })
              .map((p) => p.id);
      if (spec.retention.keepTop > 0) for (const period of open) await trim(def.name, def.rules, spec, period);
      // the current period only: a past period's players all stop writing to it
      const current = spec.period.kind === "none" ? "" : periodAt(spec.period, now).id;
      if (spec.retention.expireInactiveMs > 0 && open.includes(current))
        await expire(def.name, def.rules, spec, current, now - spec.retention.expireInactiveMs);
    }
  };

  const trim = async (board: string, rules: BoardRules, spec: BoardSpec, period: string): Promise<void> => {
    const kept = keptSize(spec.retention);
    if ((await d.queries.size(storedBoardName(board, spec, period))) <= kept) return; // one ZCARD per shard
    const last = await d.queries.entryAt(board, kept, Number.POSITIVE_INFINITY, period ? { period } : {});
    if (!last || last.total <= kept) return;
    const { entry, total } = last;
    await everyPartition(
      board,
      rules,
      create(ModerationSchema, {
        action: ModerationAction.TRIM,
        board,
        period,
        by: RETAINER,
        reason: `keep_top ${spec.retention.keepTop} + keep_margin ${spec.retention.keepMargin}: ${total} entries trimmed to ${kept}`,
        atMs: BigInt(clock()),
        partitions: d.partitions,
        floorKey: BigInt(encodeSortKey(spec, entry.points, entry.reachedAtMs)),
        floorPlayer: entry.playerId,
        count: BigInt(total),
      }),
    );
  };

  const expire = async (board: string, rules: BoardRules, spec: BoardSpec, period: string, cutoffMs: number): Promise<void> => {
    const stored = storedBoardName(board, spec, period);
    const counts = await d.pool.fanOut(d.pool.scope("").stores, (s) => s.inactiveCount(stored, cutoffMs));
    const inactive = counts.reduce((a, b) => a + b, 0);
    if (inactive === 0) return;
    await everyPartition(
      board,
      rules,
      create(ModerationSchema, {
        action: ModerationAction.EXPIRE,
        board,
        period,
        by: RETAINER,
        reason: `expire_inactive_ms ${spec.retention.expireInactiveMs}: ${inactive} players without an event since ${new Date(cutoffMs).toISOString()}`,
        atMs: BigInt(clock()),
        partitions: d.partitions,
        cutoffMs: BigInt(cutoffMs),
        count: BigInt(inactive),
      }),
    );
  };

  /** Writes `m` to every partition (with the board's rules, as a score record carries them) and waits until the shards applied it. */
  const everyPartition = async (board: string, rules: BoardRules, m: Moderation): Promise<void> => {
    const value = encodeModeration(m, rules);
    const sent = await (await d.producer()).send(
      d.scoreTopic,
      Array.from({ length: d.partitions }, (_, partition) => ({ key: board, value, partition })),
    );
    d.log.info(
      {
        action: ModerationAction[m.action],
        board,
        period: m.period,
        count: String(m.count),
        ...(m.action === ModerationAction.TRIM ? { floorPlayer: m.floorPlayer } : { cutoffMs: String(m.cutoffMs) }),
      },
      "retention written",
    );
    await waitApplied(d.pool, new Map(sent.map((w) => [w.partition, BigInt(w.baseOffset)])), APPLY_WAIT_MS, Number.POSITIVE_INFINITY);
  };

  const loop = (async () => {
    while (!stopping) {
      try {
        await look();
      } catch (err) {
        d.log.warn({ err }, "retainer: a look failed; the next one tries again");
      }
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, d.intervalMs).unref();
      });
    }
  })();

  return {
    async stop() {
      stopping = true;
      wake?.();
      await loop;
    },
  };
}
