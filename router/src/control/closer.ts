/**
 * The closer: freezes the periods of boards whose rules have `close` (model/src/closes.ts says
 * when a period closes and why the log, not a clock, decides what it holds).
 *
 * Every router runs one. About once a second it looks at each such board's kept periods; a period
 * whose close time plus CLOSE_SETTLE_MS has passed, and that this process has not seen closed yet,
 * is checked on the shards: each shard owning some partitions says which of them applied the
 * period's close marker (one ZRANGEBYLEX of its markers set, store/src/reader.ts). Markers are
 * written to the partitions that lack one, then the closer waits until the shards applied them,
 * and the next look finds the period closed on every partition and remembers it.
 *
 * ONCE, WHATEVER DIES. The shards' markers are the state: a closer that dies after writing some
 * markers leaves the rest to the next look, by itself restarted or by another router; markers
 * written twice (two routers at once, or a marker not applied yet when looked at) change nothing,
 * since a shard records a partition's close once and ignores every later record of the period in
 * that partition either way. A replay of the log freezes the period at the same positions.
 *
 * THE CLOSE EVENT. Once every partition has applied the markers, the standings are final: the
 * closer reads them whole (GetTop's pages, on the primaries), and writes the period's close event
 * (PeriodClose: size, top K with ranks, checksum of the whole board, the board's rewards by rank
 * resolved: one per rewarded player) to the closes topic exactly
 * once, in a Kafka transaction that fences every other closer first (log/src/period-closes.ts).
 * A closer that dies before the commit leaves an aborted transaction (or none); the next look, by
 * any router, writes the event. The event is built from the frozen board, so any closer builds
 * the same one (but its written_at_ms).
 *
 * A LEAGUE (model/src/leagues.ts): its period's entries are in its cohorts. Once the markers are
 * applied, the closer reads each cohort whole and writes a tier record for each player the close
 * moves, then the settlement, to the league's partition (the next period's placements wait for it);
 * once the settlement is applied, each cohort gets its close event as a period does (keyed by the
 * cohort's period "<period>/<cohort>", its rewards resolved by rank within the cohort). Dying
 * midway, it leaves the next look (any router's) to go on: a tier written twice changes nothing,
 * and a cohort's close event is written once.
 *
 * COSTS. Per closing period, until it is seen closed: one read per shard per look, and at most one
 * marker per partition per look; after that, nothing but a set lookup per look. A router that
 * starts checks each kept, closed period of such boards once (a read per shard). The event: one
 * read of the whole period (pages of 1,000), once per period.
 */
import { CLOSE_SETTLE_MS, closeTimeOf } from "@ladder/model/closes";
import {
  closeKey,
  DEFAULT_CLOSE_TOP_K,
  encodePeriodClose as encodeCloseEvent,
  newPeriodClose,
  StandingsChecksum,
} from "@ladder/model/close-record";
import { writeCloseOnce, type PeriodCloses } from "@ladder/log/period-closes";
import { resolveRewards, type RewardRangeInput } from "@ladder/model/rewards";
import type { Queries, RankedEntry } from "../read/queries.js";
import { storedBoardName } from "@ladder/model/board-spec";
import { keptPeriods, type Period } from "@ladder/model/periods";
import { encodeLeagueClose, encodePeriodClose } from "@ladder/model/score-event";
import { cohortId, cohortPeriod, cohortsOfGroups, placementPartitionOf, tierAfter, type League } from "@ladder/model/leagues";
import type { BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { BoardDefinitions } from "@ladder/log/board-definitions-follower";
import type { OutgoingRecord, RecordProducer } from "@ladder/log/record-producer";
import type { Logger } from "@ladder/platform/logger";
import type { ShardReader } from "@ladder/store";
import type { ShardPool } from "../read/shard-pool.js";
import { waitApplied } from "../read/wait-applied.js";

export interface CloserDeps {
  definitions: BoardDefinitions;
  pool: ShardPool;
  scoreTopic: string;
  partitions: number;
  /** A producer (connected on first use). */
  producer: () => Promise<RecordProducer>;
  /** The closes topic, followed. */
  closes: PeriodCloses;
  /** The control plane's Kafka client (its login may write the closes topic under the closer's transactional id). */
  kafka: Parameters<typeof writeCloseOnce>[0]["kafka"];
  /** Reads of the live boards on the primaries, without caches. */
  queries: Queries;
  /** Fault injection for tests (Config.closerCrashAt): exit at this step. */
  crashAt?: "" | "markers" | "event";
  log: Logger;
  /** Between two looks, ms. */
  intervalMs?: number;
  clock?: () => number;
}

/** Between two looks at the boards: 1 s. */
const LOOK_INTERVAL_MS = 1000;
/** Entries per page of a final standings' read. */
const STANDINGS_PAGE = 1000;
/** How long a look waits for the markers it wrote to be applied: 30 s. */
const APPLY_WAIT_MS = 30_000;

export interface Closer {
  /** Stops looking; resolves once the look under way (if any) ended. */
  stop(): Promise<void>;
}

export function startCloser(d: CloserDeps): Closer {
  const clock = d.clock ?? Date.now;
  const closed = new Set<string>(); // stored period names seen closed on every partition
  let stopping = false;
  let wake: (() => void) | undefined;

  const look = async (): Promise<void> => {
    const now = clock();
    for (const def of d.definitions.catalog.list()) {
      if (!def.rules?.close) continue;
      const spec = d.definitions.catalog.forBoard(def.name);
      if (!spec || spec.period.kind === "none") continue;
      for (const period of keptPeriods(spec.period, now)) {
        const closeAt = closeTimeOf(spec.period, period);
        if (stopping || closeAt === undefined || now < closeAt + CLOSE_SETTLE_MS) continue;
        if (period.endMs <= Number(def.rules.generation)) continue; // ended before the board was defined: never held a score
        const stem = storedBoardName(def.name, spec, period.id);
        if (closed.has(stem)) continue;
        if (!(await closePeriod(def.name, def.rules.generation, period, stem))) continue;
        if (spec.league) {
          // a league's close moves tiers first (the next period's placements wait for it), then
          // each cohort gets its close event (the league's own period holds no entries)
          if (!(await settleLeague(def, spec.league, period))) continue;
          const cohorts = await cohortsOf(def, spec.league, period);
          for (const cohort of cohorts) await closeOnce(def, { ...period, id: cohortPeriod(period.id, cohort) }, closeAt);
          closed.add(stem);
          d.log.info(
            { board: def.name, period: period.id, closeAtMs: closeAt, cohorts: cohorts.length },
            "league period closed and settled",
          );
          continue;
        }
        const written = await closeOnce(def, period, closeAt);
        closed.add(stem);
        d.log.info({ board: def.name, period: period.id, closeAtMs: closeAt, event: written }, "period closed");
      }
    }
  };

  /** The close event of `period` of `def` (a league's cohort: "<period>/<cohort>"), written once: whether it existed already. */
  const closeOnce = async (def: BoardDefinition, period: Period, closeAt: number): Promise<"exists" | "written"> => {
    const key = closeKey(def.name, def.rules!.generation, period.id);
    if (d.closes.get(key)) return "exists";
    await writeCloseOnce({
      kafka: d.kafka,
      scoreTopic: d.scoreTopic,
      closes: d.closes,
      key,
      build: () =>
        closeEvent(
          def.name,
          def.rules!.generation,
          period,
          closeAt,
          def.rules!.close!.topK || DEFAULT_CLOSE_TOP_K,
          def.rules!.close!.rewards,
        ),
      beforeCommit: () => crash("event"),
    });
    return "written";
  };

  /** The cohorts of a league's period, as the shard of its partition placed them. */
  const cohortsOf = async (def: BoardDefinition, league: League, period: Period): Promise<string[]> => {
    const owner = d.pool.ownerOfSlot(placementPartitionOf(def.name, d.partitions));
    const seen = await d.pool.call(owner, (s) =>
      s.league(storedBoardName(def.name, { generation: Number(def.rules!.generation) }), period.id, ""),
    );
    return cohortsOfGroups(league, seen.groups).map((c) => cohortId(league, c));
  };

  /** Writes the markers the shards lack; whether every partition had applied one already. */
  const closePeriod = async (board: string, generation: bigint, period: Period, stem: string): Promise<boolean> => {
    const owners = new Map<ShardReader, number[]>();
    for (let p = 0; p < d.partitions; p++) {
      const owner = d.pool.ownerOfSlot(p);
      owners.set(owner, [...(owners.get(owner) ?? []), p]);
    }
    const missing: number[] = [];
    for (const [owner, partitions] of owners) {
      const done = new Set(await d.pool.call(owner, (s) => s.closedPartitions(stem)));
      missing.push(...partitions.filter((p) => !done.has(p)));
    }
    if (missing.length === 0) return true;
    const value = encodePeriodClose(board, generation, period.id, clock());
    const sent = await (await d.producer()).send(
      d.scoreTopic,
      missing.map((partition) => ({ key: board, value, partition })),
    );
    d.log.info({ board, period: period.id, markers: sent.length }, "close markers written");
    crash("markers");
    await waitApplied(d.pool, new Map(sent.map((m) => [m.partition, BigInt(m.baseOffset)])), APPLY_WAIT_MS, Number.POSITIVE_INFINITY);
    return false;
  };

  /**
   * The promotions and relegations of a league's closed period (model/src/leagues.ts), once: each
   * cohort read whole (final: every partition applied the close marker), a tier record for each
   * player who moves, then the settlement, all in the league's partition. Whether the period was
   * settled already; otherwise the records are written and applied (a closer that dies midway
   * leaves the next look to write them again: a tier written twice changes nothing).
   */
  const settleLeague = async (def: BoardDefinition, league: League, period: Period): Promise<boolean> => {
    const owner = () => d.pool.ownerOfSlot(placementPartitionOf(def.name, d.partitions));
    const stored = storedBoardName(def.name, { generation: Number(def.rules!.generation) });
    const seen = await d.pool.call(owner(), (s) => s.league(stored, period.id, ""));
    if (seen.settled) return true;
    const partition = placementPartitionOf(def.name, d.partitions);
    const at = clock();
    const moves: OutgoingRecord[] = [];
    const cohorts = cohortsOfGroups(league, seen.groups);
    for (const c of cohorts) {
      const where = { period: cohortPeriod(period.id, cohortId(league, c)) };
      const page = await d.queries.top(def.name, 0, league.cohortSize, Number.POSITIVE_INFINITY, where);
      for (const e of page.entries) {
        const tier = tierAfter(league, c.tier, e.rank, page.total);
        if (tier !== c.tier)
          moves.push({
            key: e.playerId,
            partition,
            value: encodeLeagueClose(def.name, def.rules!, period, at, { playerId: e.playerId, tier }),
          });
      }
    }
    const producer = await d.producer();
    for (let i = 0; i < moves.length; i += STANDINGS_PAGE) await producer.send(d.scoreTopic, moves.slice(i, i + STANDINGS_PAGE));
    const sent = await producer.send(d.scoreTopic, [
      { key: def.name, partition, value: encodeLeagueClose(def.name, def.rules!, period, at) },
    ]);
    d.log.info({ board: def.name, period: period.id, cohorts: cohorts.length, moved: moves.length }, "league tiers written");
    await waitApplied(d.pool, new Map(sent.map((m) => [m.partition, BigInt(m.baseOffset)])), APPLY_WAIT_MS, Number.POSITIVE_INFINITY);
    return false;
  };

  /** Exits the process at `step` when the configuration says so (tests kill the closer mid-close): code 86 after the markers, 87 before the commit. */
  const crash = (step: "markers" | "event"): void => {
    if (d.crashAt !== step) return;
    d.log.warn({ step }, "closer: exiting at this step (LADDER_CLOSER_CRASH_AT)");
    process.exit(step === "markers" ? 86 : 87);
  };

  /** The close event of a period whose standings are final: read whole, in pages. */
  const closeEvent = async (
    board: string,
    generation: bigint,
    period: Period,
    closeAtMs: number,
    topK: number,
    ranges: readonly RewardRangeInput[],
  ): Promise<Buffer> => {
    const where = { period: period.id };
    const checksum = new StandingsChecksum();
    const top: RankedEntry[] = [];
    const rewards: Array<{ playerId: string; rank: bigint; score: bigint; reward: string }> = [];
    const page = await d.queries.top(board, 0, STANDINGS_PAGE, Number.POSITIVE_INFINITY, where);
    const total = page.total;
    const resolved = resolveRewards(ranges, total);
    const take = (entries: readonly RankedEntry[]) => {
      checksum.add(entries.map((e) => ({ rank: e.rank, playerId: e.playerId, score: e.points, reachedAtMs: e.reachedAtMs })));
      for (const e of entries) {
        if (top.length < topK) top.push(e);
        const reward = resolved.rewardAt(e.rank);
        if (reward !== undefined) rewards.push({ playerId: e.playerId, rank: BigInt(e.rank), score: BigInt(e.points), reward });
      }
    };
    take(page.entries);
    for (let next = d.queries.cursorsOf(board, page, where).next; next !== ""; ) {
      const more = await d.queries.pageAt(board, next, STANDINGS_PAGE, Number.POSITIVE_INFINITY, where);
      take(more.entries);
      next = more.next;
    }
    if (checksum.size !== total) throw new Error(`period ${period.id} of board "${board}": read ${checksum.size} entries of ${total}`);
    return encodeCloseEvent(
      newPeriodClose({
        board,
        generation,
        period: period.id,
        startMs: BigInt(period.startMs),
        endMs: BigInt(period.endMs),
        closeAtMs: BigInt(closeAtMs),
        size: BigInt(total),
        top: top.map((e) => ({
          playerId: e.playerId,
          score: BigInt(e.points),
          rank: BigInt(e.rank),
          reachedAtMs: BigInt(e.reachedAtMs),
          metadata: e.metadata,
        })),
        checksum: checksum.digest(),
        rewards,
        writtenAtMs: BigInt(clock()),
      }),
    );
  };

  const loop = (async () => {
    while (!stopping) {
      try {
        await look();
      } catch (err) {
        d.log.warn({ err }, "closer: a look failed; the next one tries again");
      }
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, d.intervalMs ?? LOOK_INTERVAL_MS).unref();
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
