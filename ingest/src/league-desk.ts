/**
 * Ingest's side of leagues (the rules: model/src/leagues.ts): the cohort of each league write.
 *
 * A write to a league lands in the player's cohort of the write's period, "<period>/<cohort>". The
 * cohort is decided by the shard that applies the league's partition, never here: for a player
 * this ingest has not seen placed in the period, it reads the placement there; when there is none
 * it writes a placement record to that partition, waits until it is applied (polling the shard's
 * applied offset, as rank reports do) and reads what the shard decided. Placements of one batch go
 * in one produce call and one wait. What was read is remembered (a player stays in its cohort for
 * the whole period), so a player's later writes cost nothing more.
 *
 * REFUSALS. The shard holds a placement back while the period before is being settled (its close
 * is writing promotions): UNAVAILABLE, retryable, naming the period. A placement that reached the
 * log after the period's close marker (or the board's deletion) places nobody: FAILED_PRECONDITION.
 * Nothing of the batch is written then, but the placements of the batch's other players stand (a
 * placed player keeps its seat for the period, and its next write goes there).
 */
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { storedBoardName } from "@ladder/model/board-spec";
import { Code, invalidArgument, LadderError } from "@ladder/model/errors";
import { cohortId, cohortOfCode, placementPartitionOf, settlingMessage } from "@ladder/model/leagues";
import { periodAt, type Period } from "@ladder/model/periods";
import { encodeLeaguePlacement } from "@ladder/model/score-event";
import type { ScoreUpdate } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { GroupCommitProducer } from "./group-commit-producer.js";
import { untilApplied } from "./rank-reports.js";
import type { ShardReaders } from "./shard-readers.js";
import { randomUUID } from "node:crypto";

export interface LeagueDeskDeps {
  numSlots: number;
  producer: GroupCommitProducer;
  shards: ShardReaders;
  clock?: () => number;
}

/** Placements remembered (per league period, player -> cohort): past this many, all go before the next batch. */
const REMEMBERED = 200_000;

/** Per update of a batch: its league boards' cohorts by board name (empty for an update that writes no league). */
export type BatchCohorts = ReadonlyArray<ReadonlyMap<string, string>>;

interface Need {
  /** The league's period's table of placements ("<stored>@<period>"). */
  table: string;
  board: string;
  stored: string;
  playerId: string;
  bracket: number;
  period: Period;
  previous: string;
  cohortOf: (code: number) => string;
  rules: NonNullable<ReturnType<BoardCatalog["definition"]>>["rules"];
}

export class LeagueDesk {
  private readonly clock: () => number;
  /**
   * Placements seen, per league period ("<stored>@<period>"), player -> cohort: two levels, so that an
   * update's lookup hashes its player id (a string it already holds) and no string built for it.
   */
  private readonly placed = new Map<string, Map<string, string>>();
  private remembered = 0;

  constructor(private readonly d: LeagueDeskDeps) {
    this.clock = d.clock ?? Date.now;
  }

  /** Whether any update of a batch writes a league (only then is `cohorts` needed). */
  static writesLeague(updates: readonly ScoreUpdate[], catalog: BoardCatalog): boolean {
    // on every batch of every board: no allocation per update
    for (const u of updates) {
      if (u.bracket !== 0 || catalog.forBoard(u.board)?.league) return true;
      for (const b of u.alsoBoards) if (catalog.forBoard(b)?.league) return true;
      if (u.leaveBoard !== "" && catalog.forBoard(u.leaveBoard)?.league) return true;
    }
    return false;
  }

  /**
   * The cohorts of a batch's league writes: `known` when every player is placed already in this
   * ingest's memory (nothing to wait for); else `place`, to call once the batch is validated (every
   * board exists, every time lies in a kept, open period), which places the players not placed yet.
   */
  plan(
    updates: readonly ScoreUpdate[],
    catalog: BoardCatalog,
    nowMs: number,
  ): { known: BatchCohorts; place?: never } | { known?: never; place: (deadlineMs: number) => Promise<BatchCohorts> } {
    // past the bound, every placement remembered goes (each player is read again from the shard once)
    if (this.remembered > REMEMBERED) {
      this.placed.clear();
      this.remembered = 0;
    }
    const needs = new Map<string, Need>();
    // per board, the period of the batch's last update of it and its table: most updates of a batch share one
    const last = new Map<string, { period: Period; table: string; cohorts: Map<string, string> | undefined }>();
    const wanted = updates.map((u, i) => {
      const at = () => `updates[${i}]`;
      const boards = [u.board, ...u.alsoBoards].filter((b) => catalog.forBoard(b)?.league);
      if (u.leaveBoard !== "" && catalog.forBoard(u.leaveBoard)?.league)
        throw invalidArgument(`${at()}.leave_board: "${u.leaveBoard}" is a league: a player stays in its cohort for the period`);
      if (u.bracket !== 0 && !boards.some((b) => catalog.forBoard(b)!.league!.brackets > 1))
        throw invalidArgument(`${at()}.bracket: must be 0 for an update that writes no league with brackets, got ${u.bracket}`);
      const ts = u.timestampMs === 0n ? nowMs : Number(u.timestampMs);
      return boards.map((board) => {
        const spec = catalog.forBoard(board)!;
        const league = spec.league!;
        if (league.brackets > 1 && u.bracket >= league.brackets)
          throw invalidArgument(
            `${at()}.bracket: must be 0 to ${league.brackets - 1} (league "${board}" has ${league.brackets} brackets), got ${u.bracket}`,
          );
        let seen = last.get(board);
        if (!seen || ts < seen.period.startMs || ts >= seen.period.endMs) {
          const period = periodAt(spec.period, ts);
          const table = `${storedBoardName(board, spec)}@${period.id}`;
          last.set(board, (seen = { period, table, cohorts: this.placed.get(table) }));
        }
        const { period, table } = seen;
        if (seen.cohorts?.has(u.playerId) !== true) {
          const key = `${table}\n${u.playerId}`;
          if (!needs.has(key)) {
            const before = periodAt(spec.period, period.startMs - 1);
            needs.set(key, {
              table,
              board,
              stored: storedBoardName(board, spec),
              playerId: u.playerId,
              bracket: league.brackets > 1 ? u.bracket : 0,
              period,
              previous: before.id === period.id ? "" : before.id,
              cohortOf: (code) => cohortId(league, cohortOfCode(code)),
              rules: catalog.definition(board)!.rules,
            });
          }
        }
        return [board, table, u.playerId] as const;
      });
    });
    const cohorts = () =>
      wanted.map((triples) => new Map(triples.map(([board, table, player]) => [board, this.placed.get(table)!.get(player)!])));
    if (needs.size === 0) return { known: cohorts() };
    return {
      place: async (deadlineMs) => {
        await this.place([...needs], deadlineMs);
        return cohorts();
      },
    };
  }

  private ownerOf(partition: number) {
    const table = this.d.shards.current();
    return table.readers.get(table.placement.slotToShard[partition]!)!;
  }

  /** Reads the placements of `needs`, writes those missing, waits, and reads again: every need placed, or a refusal. */
  private async place(needs: Array<[string, Need]>, deadlineMs: number): Promise<void> {
    const read = async (n: Need) => {
      const partition = placementPartitionOf(n.board, this.d.numSlots);
      const seen = await this.ownerOf(partition).league(n.stored, n.period.id, n.playerId);
      if (seen.code >= 0) this.remember(n.table, n.playerId, n.cohortOf(seen.code));
      return seen.code >= 0;
    };
    const missing = (await Promise.all(needs.map(async ([key, n]) => ((await read(n)) ? [] : [[key, n] as const])))).flat();
    if (missing.length === 0) return;
    const at = this.clock();
    const reports = new Map<string, string>();
    const records = missing.map(([key, n]) => {
      const reportId = randomUUID();
      reports.set(key, reportId);
      const p = { period: n.period.id, expireAtMs: n.period.expireAtMs, previous: n.previous, bracket: n.bracket, reportId };
      return {
        partition: placementPartitionOf(n.board, this.d.numSlots),
        key: n.playerId,
        value: encodeLeaguePlacement(n.board, n.playerId, n.rules!, p, at),
      };
    });
    const written = await this.d.producer.submit(records, Math.max(1, deadlineMs - Date.now()));
    await Promise.all(
      [...written].map(([partition, offset]) =>
        untilApplied(this.ownerOf(partition), partition, offset, deadlineMs, "place the league's players"),
      ),
    );
    for (const [key, n] of missing) {
      if (await read(n)) continue;
      const outcome = await this.ownerOf(placementPartitionOf(n.board, this.d.numSlots)).outcome(reports.get(key)!);
      if (outcome === "settling") throw new LadderError(Code.UNAVAILABLE, settlingMessage(n.board, n.previous));
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `player "${n.playerId}" was not placed in period ${n.period.id} of league "${n.board}": the period closed, or the board was deleted, before its placement reached the shard`,
      );
    }
  }

  private remember(table: string, player: string, cohort: string): void {
    let cohorts = this.placed.get(table);
    if (!cohorts) this.placed.set(table, (cohorts = new Map()));
    if (cohorts.has(player)) return;
    cohorts.set(player, cohort);
    this.remembered++;
  }
}
