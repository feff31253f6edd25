/**
 * Board definitions: boards created through AdminService, kept in a compacted Kafka topic
 * (`<score topic>.boards`, one partition, key = board name, value = a BoardDefinition, the
 * latest record of a name is its definition) that routers and ingest follow.
 *
 * THE RULES TRAVEL WITH THE RECORDS. A definition's rules (order, tie rule, points range,
 * resolution, epoch, generation) fix how its scores are stored; they never change while the
 * board exists. Ingest copies them into every score record it writes to the board, and a
 * shard applies a record by the rules it carries. So shard nodes need not follow this topic,
 * and a shard rebuilt from the log applies every record as it was written, whatever the
 * definitions say by then. Routers decode with the definition they follow: the same rules.
 *
 * GENERATIONS. A board's keys are named by its generation (board-spec.ts, storedBoardName):
 * the time it was created (Unix ms). A definition over a name once written without one
 * (LADDER_IMPLICIT_BOARDS) starts with empty keys of its own, as would a board created again.
 *
 * FOLLOWING. Each process reads the whole topic at start (a compacted topic holds one record
 * per board, about 100 bytes each: 10,000 boards are ~1 MB) before it serves, then keeps
 * following it (@ladder/log/board-definitions-follower), so a new board is known everywhere within
 * a fraction of a second. This file is the definitions' meaning and encoding only, no I/O.
 *
 * WHAT MAY CHANGE. UpdateBoard may change the default operation and whether writes may
 * override it (each write record carries the operation it resolved to), the metadata limit and
 * the write quota (both checked by ingest only). Concurrent creates of one name: the later record wins everywhere (as
 * compaction will keep it), and the call whose record lost answers ABORTED.
 *
 * DELETION. DeleteBoard writes a tombstone of the name here (every follower drops the board),
 * then a deletion marker into every partition of the score log (apply-events.lua: each shard drops
 * the generation's keys once it applied the markers of all its partitions, and ignores the
 * generation's records after them). If the router dies between the two, the definition is gone
 * and no marker was written: the generation's keys stay on the shards, never read again (no
 * definition names that generation), until an operator deletes them
 * (`<prefix>board:<name>#<generation>*`). Stated in docs/boards.md, "Deleting a board".
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BoardDefinitionSchema, type BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import {
  BoardRulesSchema,
  Operation,
  PeriodKind as ProtoPeriodKind,
  SortOrder,
  TieRule,
  WindowCombine,
  WindowRuleSchema,
  CloseRuleSchema,
  TournamentRuleSchema,
  TeamCombine,
  TeamRuleSchema,
  ColumnRuleSchema,
  type BoardRules,
  type TeamRule,
} from "@ladder/proto/leaderboard/v1/common_pb";
import type { PeriodKind } from "./periods.js";
import { DEFAULT_BOARD, makeBoardSpec, type BoardResolver, type BoardSpec, type BoardSpecs, type TieRule as Tie } from "./board-spec.js";
import { boardProblem, MAX_METADATA_BYTES } from "./validate.js";
import { makeWindows, type WindowCombine as Combine } from "./windows.js";
import { histogramProblem } from "./histogram.js";
import { quotaProblem } from "./write-quota.js";
import { MAX_CLOSE_TOP_K } from "./close-record.js";
import { rewardsProblem } from "./rewards.js";
import { resolveTournament } from "./tournaments.js";
import { leagueOf, leagueRuleProblem } from "./leagues.js";
import { teamRuleProblem, type Team } from "./teams.js";
import { retentionOf, retentionProblem } from "./retention.js";
import { columnsProblem, type Column } from "./columns.js";

/** Defined boards a cluster holds at most: CreateBoard answers RESOURCE_EXHAUSTED past it. */
export const MAX_BOARDS = 10_000;

const TIES: Record<number, Tie> = {
  [TieRule.UNSPECIFIED]: "earliest",
  [TieRule.EARLIEST_FIRST]: "earliest",
  [TieRule.LATEST_FIRST]: "latest",
  [TieRule.PLAYER_ID]: "id",
};
const PERIODS: Record<number, PeriodKind> = {
  [ProtoPeriodKind.UNSPECIFIED]: "none",
  [ProtoPeriodKind.DAILY]: "daily",
  [ProtoPeriodKind.WEEKLY]: "weekly",
  [ProtoPeriodKind.MONTHLY]: "monthly",
  [ProtoPeriodKind.CRON]: "cron",
  [ProtoPeriodKind.SEASON]: "season",
  [ProtoPeriodKind.TOURNAMENT]: "tournament",
};
const OPERATIONS = new Set([Operation.SET, Operation.INCREMENT, Operation.BEST, Operation.DECREMENT]);
const COMBINES: Record<number, Combine> = { [WindowCombine.UNSPECIFIED]: "sum", [WindowCombine.SUM]: "sum", [WindowCombine.BEST]: "best" };

/** A board's spec from rules (a definition's, or those a score record carries). */
export function specOfRules(
  board: string,
  rules: BoardRules,
  op: { defaultOp?: Operation; allowOpOverride?: boolean; maxMetadataBytes?: number; scoreCeiling?: number } = {},
): { spec?: BoardSpec; problems: string[] } {
  const tie = TIES[rules.tie];
  if (rules.order !== SortOrder.UNSPECIFIED && rules.order !== SortOrder.HIGHER_IS_BETTER && rules.order !== SortOrder.LOWER_IS_BETTER)
    return { problems: [`board "${board}": unknown sort order ${rules.order}`] };
  if (tie === undefined) return { problems: [`board "${board}": unknown tie rule ${rules.tie}`] };
  if (PERIODS[rules.period] === undefined) return { problems: [`board "${board}": unknown period kind ${rules.period}`] };
  if (rules.minPoints < BigInt(Number.MIN_SAFE_INTEGER) || rules.maxPoints > BigInt(Number.MAX_SAFE_INTEGER))
    return { problems: [`board "${board}": points must lie within ±(2^53 - 1)`] };
  if (rules.period === ProtoPeriodKind.SEASON && rules.windows.length > 0)
    return { problems: [`board "${board}": a board with seasons has no windows`] };
  if (rules.period === ProtoPeriodKind.TOURNAMENT && rules.windows.length > 0)
    return { problems: [`board "${board}": a tournament has no windows`] };
  if (rules.tournament && !rules.close) return { problems: [`board "${board}": a tournament closes (rules.close)`] };
  const badLeague = rules.league && leagueRulesProblem(rules);
  if (badLeague) return { problems: [`board "${board}": ${badLeague}`] };
  const badTeam = rules.team && teamRulesProblem(rules);
  if (badTeam) return { problems: [`board "${board}": ${badTeam}`] };
  const badColumns = rules.columns.length > 0 && columnRulesProblem(rules);
  if (badColumns) return { problems: [`board "${board}": ${badColumns}`] };
  const combine = rules.windows.map((w) => COMBINES[w.combine]);
  if (combine.some((c) => c === undefined)) return { problems: [`board "${board}": unknown window combine`] };
  const badRetention = retentionProblem(rules);
  if (badRetention) return { problems: [`board "${board}": ${badRetention}`] };
  const histogram = rules.histogramBounds.map(Number);
  if (rules.histogramBounds.some((b) => b < BigInt(Number.MIN_SAFE_INTEGER) || b > BigInt(Number.MAX_SAFE_INTEGER)))
    return { problems: [`board "${board}": histogram_bounds must lie within ±(2^53 - 1)`] };
  const made = makeBoardSpec({
    prefix: board,
    minPoints: Number(rules.minPoints),
    maxPoints: Number(rules.maxPoints),
    resolutionMs: rules.resolutionMs,
    epochMs: Number(rules.epochMs),
    lowerIsBetter: rules.order === SortOrder.LOWER_IS_BETTER,
    tie,
    generation: Number(rules.generation),
    period: {
      kind: PERIODS[rules.period]!,
      zone: rules.timeZone || "UTC",
      cron: rules.cron,
      keep: rules.keepPeriods,
      ...(rules.season
        ? { season: { firstDay: rules.season.firstDay, lengthDays: rules.season.lengthDays, gapDays: rules.season.gapDays } }
        : {}),
      ...(rules.tournament ? { tournament: { startMs: Number(rules.tournament.startMs), endMs: Number(rules.tournament.endMs) } } : {}),
      ...(rules.close ? { closeGraceMs: Number(rules.close.graceMs) } : {}),
    },
    ...(op.defaultOp !== undefined ? { defaultOp: op.defaultOp } : {}),
    ...(op.allowOpOverride !== undefined ? { allowOpOverride: op.allowOpOverride } : {}),
    ...(op.maxMetadataBytes !== undefined ? { maxMetadataBytes: op.maxMetadataBytes } : {}),
    ...(op.scoreCeiling ? { scoreCeiling: op.scoreCeiling } : {}),
    ...(histogram.length ? { histogram: Object.freeze(histogram) } : {}),
    ...(rules.keepTop || rules.expireInactiveMs ? { retention: Object.freeze(retentionOf(rules)) } : {}),
    ...(rules.league ? { league: Object.freeze(leagueOf(rules.league)) } : {}),
    ...(rules.team ? { team: Object.freeze(teamOf(rules.team)) } : {}),
    ...(rules.columns.length ? { columns: columnsOf(rules) } : {}),
  });
  const badHistogram = made.spec && histogramProblem(made.spec, histogram);
  if (badHistogram) return { problems: [`board "${board}": ${badHistogram}`] };
  if (!made.spec || rules.windows.length === 0) return made;
  // cron periods are sampled from the board's creation (its generation): every service derives the same windows
  const windows = makeWindows(
    made.spec,
    rules.windows.map((w, i) => ({ name: w.name, periods: w.periods, combine: combine[i]! })),
    Number(rules.generation),
  );
  return windows.windows
    ? { spec: Object.freeze({ ...made.spec, windows: windows.windows }), problems: [] }
    : { problems: windows.problems };
}

/**
 * What is wrong with a league's rules as a whole (model/src/leagues.ts), or undefined: its own
 * limits, then periods that close and are kept past their end (the closer reads them after it),
 * and none of what would change a cohort behind its players' backs.
 */
function leagueRulesProblem(rules: BoardRules): string | undefined {
  const l = rules.league!;
  const own = leagueRuleProblem(l);
  if (own) return own;
  const kind = PERIODS[rules.period];
  if (kind === undefined || kind === "none" || kind === "tournament")
    return "a league needs periods (daily, weekly, monthly, cron or season): its cohorts are placed anew each period";
  if (!rules.close) return "a league's periods close (rules.close): promotions are applied at the close";
  if (rules.keepPeriods < 1)
    return `a league keeps at least 1 past period (keep_periods), got ${rules.keepPeriods}: its close reads the period after it ends`;
  if (rules.windows.length > 0) return "a league has no windows";
  if (rules.keepTop > 0 || rules.expireInactiveMs > 0n)
    return "a league takes no keep_top nor expire_inactive_ms: its cohorts hold their players";
  return undefined;
}

/** A board's columns as the model uses them (model/src/columns.ts). */
export function columnsOf(rules: BoardRules): Column[] {
  return rules.columns.map((c) => ({ name: c.name, lowerIsBetter: c.order === SortOrder.LOWER_IS_BETTER }));
}

/**
 * What is wrong with the rules of a board with columns, or undefined: the columns themselves, then
 * nothing that reads or keeps one score per entry (windows, histograms, retention, closes with their
 * top K, tournaments, leagues, teams).
 */
function columnRulesProblem(rules: BoardRules): string | undefined {
  const own = columnsProblem(rules.columns);
  if (own) return own;
  for (const [i, c] of rules.columns.entries())
    if (c.order !== SortOrder.UNSPECIFIED && c.order !== SortOrder.HIGHER_IS_BETTER && c.order !== SortOrder.LOWER_IS_BETTER)
      return `rules.columns[${i}].order: unknown sort order ${c.order}`;
  if (rules.windows.length > 0) return "a board with columns has no windows";
  if (rules.histogramBounds.length > 0) return "a board with columns has no histogram_bounds";
  if (rules.keepTop > 0 || rules.expireInactiveMs > 0n) return "a board with columns takes no keep_top nor expire_inactive_ms";
  if (rules.close || rules.tournament || rules.league || rules.team)
    return "a board with columns takes no close, tournament, league or team rule";
  return undefined;
}

/** A team rule as the model uses it (model/src/teams.ts). */
export function teamOf(r: TeamRule): Team {
  const combine = r.combine === TeamCombine.BEST ? "best" : "sum";
  return { source: r.source, combine, bestK: combine === "best" ? r.bestK : 0 };
}

/**
 * What is wrong with a team board's rules as a whole, or undefined: its own fields, then an
 * all-time board that takes nothing that would change a team's entry but its members.
 */
function teamRulesProblem(rules: BoardRules): string | undefined {
  const t = rules.team!;
  if (t.combine !== TeamCombine.UNSPECIFIED && t.combine !== TeamCombine.SUM && t.combine !== TeamCombine.BEST)
    return `team.combine: unknown combine ${t.combine}`;
  const own = teamRuleProblem({ ...teamOf(t), bestK: t.bestK });
  if (own) return own;
  if (boardProblem(t.source)) return `team.source: ${boardProblem(t.source)}`;
  if (rules.period !== ProtoPeriodKind.UNSPECIFIED)
    return "a team board is all-time (no periods): its teams' points follow their members' all-time points";
  if (rules.league || rules.tournament) return "a team board is neither a league nor a tournament";
  if (rules.windows.length > 0) return "a team board has no windows";
  if (rules.keepTop > 0 || rules.expireInactiveMs > 0n) return "a team board takes no keep_top nor expire_inactive_ms";
  return undefined;
}

/** The spec of a stored definition. */
export function specOfDefinition(d: BoardDefinition): BoardSpec {
  const { spec, problems } = specOfRules(d.name, d.rules ?? create(BoardRulesSchema), {
    defaultOp: d.defaultOp,
    allowOpOverride: d.allowOpOverride,
    maxMetadataBytes: d.maxMetadataBytes,
    scoreCeiling: Number(d.scoreCeiling),
  });
  if (!spec) throw new Error(problems.join("; "));
  return spec;
}

/** Fills a requested definition's defaults; the problems make the request INVALID_ARGUMENT. */
export function normalizeDefinition(requested: BoardDefinition, nowMs: number): { definition?: BoardDefinition; problems: string[] } {
  const nameProblem = boardProblem(requested.name);
  if (nameProblem) return { problems: [nameProblem] };
  const r = requested.rules ?? create(BoardRulesSchema);
  const tournament = r.tournament ? resolveTournament(r.tournament) : undefined;
  if (tournament?.problem) return { problems: [tournament.problem] };
  const t = tournament?.tournament;
  const unsetRange = r.minPoints === 0n && r.maxPoints === 0n;
  const rules = create(BoardRulesSchema, {
    order: r.order === SortOrder.UNSPECIFIED ? SortOrder.HIGHER_IS_BETTER : r.order,
    tie: r.tie === TieRule.UNSPECIFIED ? TieRule.EARLIEST_FIRST : r.tie,
    minPoints: unsetRange ? BigInt(DEFAULT_BOARD.minPoints) : r.minPoints,
    maxPoints: unsetRange ? BigInt(DEFAULT_BOARD.maxPoints) : r.maxPoints,
    resolutionMs: r.resolutionMs || DEFAULT_BOARD.resolutionMs,
    epochMs: r.epochMs || BigInt(DEFAULT_BOARD.epochMs),
    generation: BigInt(nowMs),
    period: r.period,
    timeZone: r.period === ProtoPeriodKind.UNSPECIFIED ? "" : r.timeZone || "UTC",
    cron: r.cron,
    keepPeriods: r.keepPeriods,
    windows: r.windows.map((w) =>
      create(WindowRuleSchema, {
        name: w.name,
        periods: w.periods,
        combine: w.combine === WindowCombine.UNSPECIFIED ? WindowCombine.SUM : w.combine,
      }),
    ),
    histogramBounds: r.histogramBounds,
    columns: r.columns.map((c) =>
      create(ColumnRuleSchema, { name: c.name, order: c.order === SortOrder.UNSPECIFIED ? SortOrder.HIGHER_IS_BETTER : c.order }),
    ),
    ...(r.season ? { season: r.season } : {}),
    // a tournament and a league close, by default at their periods' ends
    ...(r.close ? { close: r.close } : t || r.league ? { close: create(CloseRuleSchema) } : {}),
    ...(r.league ? { league: r.league } : {}),
    ...(r.team
      ? { team: create(TeamRuleSchema, { source: r.team.source, combine: r.team.combine || TeamCombine.SUM, bestK: r.team.bestK }) }
      : {}),
    ...(t
      ? {
          tournament: create(TournamentRuleSchema, {
            category: t.category,
            startMs: BigInt(t.startMs),
            endMs: BigInt(t.endMs),
            joinRequired: t.joinRequired,
            maxSize: t.maxSize,
            maxAttempts: t.maxAttempts,
          }),
        }
      : {}),
    keepTop: r.keepTop,
    keepMargin: r.keepMargin,
    expireInactiveMs: r.expireInactiveMs,
  });
  if (r.close && r.close.topK > MAX_CLOSE_TOP_K) return { problems: [`close.top_k must be 0 to ${MAX_CLOSE_TOP_K}, got ${r.close.topK}`] };
  const rewards = r.close && rewardsProblem(r.close.rewards);
  if (rewards) return { problems: [rewards] };
  const league = rules.league && leagueRulesProblem(rules);
  if (league) return { problems: [league] };
  const team = rules.team && teamRulesProblem(rules);
  if (team) return { problems: [team] };
  const columns = rules.columns.length > 0 && columnRulesProblem(rules);
  if (columns) return { problems: [columns] };
  const defaultOp = defaultOpOf(requested.defaultOp);
  if (typeof defaultOp === "string") return { problems: [defaultOp] };
  const retention = retentionProblem(rules, defaultOp);
  if (retention) return { problems: [retention] };
  const metadata = maxMetadataProblem(requested.maxMetadataBytes);
  if (metadata) return { problems: [metadata] };
  const quota = quotaProblem(requested.quota);
  if (quota) return { problems: [quota] };
  const ceiling = ceilingProblem(requested.scoreCeiling, rules);
  if (ceiling) return { problems: [ceiling] };
  const definition = create(BoardDefinitionSchema, {
    name: requested.name,
    rules,
    defaultOp,
    allowOpOverride: requested.allowOpOverride,
    maxMetadataBytes: requested.maxMetadataBytes,
    ...(requested.quota ? { quota: requested.quota } : {}),
    scoreCeiling: requested.scoreCeiling,
    createdAtMs: BigInt(nowMs),
    updatedAtMs: BigInt(nowMs),
  });
  const { problems } = specOfRules(definition.name, rules);
  return problems.length ? { problems } : { definition, problems: [] };
}

/** A definition's default operation as requested (unspecified: BEST), or what is wrong with it. */
export function defaultOpOf(requested: Operation): Operation | string {
  const op = requested === Operation.UNSPECIFIED ? Operation.BEST : requested;
  return OPERATIONS.has(op) ? op : `default_op ${requested} is not an operation (SET, INCREMENT, DECREMENT or BEST)`;
}

/** What is wrong with a definition's max_metadata_bytes, or undefined. */
export function maxMetadataProblem(bytes: number): string | undefined {
  return bytes > MAX_METADATA_BYTES ? `max_metadata_bytes ${bytes} is above ${MAX_METADATA_BYTES} (MAX_METADATA_BYTES)` : undefined;
}

/** Whether two sets of rules store scores alike (generation aside). */
export function sameRules(a: BoardRules, b: BoardRules): boolean {
  return (
    a.order === b.order &&
    a.tie === b.tie &&
    a.minPoints === b.minPoints &&
    a.maxPoints === b.maxPoints &&
    a.resolutionMs === b.resolutionMs &&
    a.epochMs === b.epochMs &&
    a.period === b.period &&
    a.timeZone === b.timeZone &&
    a.cron === b.cron &&
    a.keepPeriods === b.keepPeriods &&
    a.season?.firstDay === b.season?.firstDay &&
    a.season?.lengthDays === b.season?.lengthDays &&
    a.season?.gapDays === b.season?.gapDays &&
    a.close?.graceMs === b.close?.graceMs &&
    a.tournament?.category === b.tournament?.category &&
    a.tournament?.startMs === b.tournament?.startMs &&
    a.tournament?.endMs === b.tournament?.endMs &&
    a.tournament?.joinRequired === b.tournament?.joinRequired &&
    a.tournament?.maxSize === b.tournament?.maxSize &&
    a.tournament?.maxAttempts === b.tournament?.maxAttempts &&
    a.close?.topK === b.close?.topK &&
    JSON.stringify(a.close?.rewards.map((x) => [x.reward, String(x.fromRank), String(x.toRank), x.topPercent]) ?? []) ===
      JSON.stringify(b.close?.rewards.map((x) => [x.reward, String(x.fromRank), String(x.toRank), x.topPercent]) ?? []) &&
    a.league?.cohortSize === b.league?.cohortSize &&
    a.league?.tiers === b.league?.tiers &&
    a.league?.promote === b.league?.promote &&
    a.league?.relegate === b.league?.relegate &&
    a.league?.brackets === b.league?.brackets &&
    a.team?.source === b.team?.source &&
    a.team?.combine === b.team?.combine &&
    a.team?.bestK === b.team?.bestK &&
    a.columns.length === b.columns.length &&
    a.columns.every((c, i) => c.name === b.columns[i]!.name && c.order === b.columns[i]!.order) &&
    a.keepTop === b.keepTop &&
    a.keepMargin === b.keepMargin &&
    a.expireInactiveMs === b.expireInactiveMs &&
    a.histogramBounds.length === b.histogramBounds.length &&
    a.histogramBounds.every((x, i) => x === b.histogramBounds[i]) &&
    a.windows.length === b.windows.length &&
    a.windows.every((w, i) => w.name === b.windows[i]!.name && w.periods === b.windows[i]!.periods && w.combine === b.windows[i]!.combine)
  );
}

/**
 * The boards a process knows: the defined ones, then (when boards without a definition are
 * allowed) the configured specs by prefix. Swapped whole on every change: a reader holds one
 * consistent catalog.
 */
export class BoardCatalog implements BoardResolver {
  private readonly defined = new Map<string, { definition: BoardDefinition; spec: BoardSpec }>();

  constructor(private readonly implicit: BoardSpecs | undefined) {}

  forBoard(board: string): BoardSpec | undefined {
    return this.defined.get(board)?.spec ?? this.implicit?.forBoard(board);
  }

  /** The definition of a defined board. */
  definition(board: string): BoardDefinition | undefined {
    return this.defined.get(board)?.definition;
  }

  /** The configured spec a board without a definition takes (undefined when such boards are not allowed). */
  implicitSpec(board: string): BoardSpec | undefined {
    return this.implicit?.forBoard(board);
  }

  list(prefix = ""): BoardDefinition[] {
    return [...this.defined.values()]
      .map((d) => d.definition)
      .filter((d) => d.name.startsWith(prefix))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get size(): number {
    return this.defined.size;
  }

  /** A copy to change and swap in. */
  clone(): BoardCatalog {
    const copy = new BoardCatalog(this.implicit);
    for (const [name, d] of this.defined) copy.defined.set(name, d);
    return copy;
  }

  /** Applies one record of the topic (value undefined: a tombstone). */
  apply(name: string, definition: BoardDefinition | undefined): void {
    if (!definition) this.defined.delete(name);
    else this.defined.set(name, { definition, spec: specOfDefinition(definition) });
  }
}

/** A definition as its topic record's value (and back; throws on bytes that are not one). */
export const encodeDefinition = (d: BoardDefinition) => Buffer.from(toBinary(BoardDefinitionSchema, d));
export const decodeDefinition = (b: Uint8Array) => fromBinary(BoardDefinitionSchema, b);

/** What is wrong with a board's score ceiling (BoardDefinition.score_ceiling; 0: none) under its rules, or undefined. */
export function ceilingProblem(ceiling: bigint, rules: BoardRules): string | undefined {
  if (ceiling === 0n) return undefined;
  if (rules.columns.length > 0) return "score_ceiling: a board with columns has none (each column takes any int64): leave it 0";
  if (rules.order === SortOrder.LOWER_IS_BETTER)
    return "score_ceiling: a lower-is-better board has none (its best scores are its lowest): leave it 0";
  if (ceiling < rules.minPoints || ceiling > rules.maxPoints)
    return `score_ceiling must lie within rules.min_points..rules.max_points (${rules.minPoints}..${rules.maxPoints}), got ${ceiling}`;
  return undefined;
}
