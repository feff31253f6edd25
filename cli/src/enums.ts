/**
 * The command tables' choices (tables/) as the protobuf enums they stand for. Typed by the
 * tables' choice lists, so a choice without its enum value does not compile.
 */
import { Operation, PeriodKind, SortOrder, TieRule } from "@ladder/proto/leaderboard/v1/common_pb";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { OPERATIONS } from "./tables/writes.js";

export const OPERATION: Readonly<Record<(typeof OPERATIONS)[number], Operation>> = Object.freeze({
  set: Operation.SET,
  inc: Operation.INCREMENT,
  increment: Operation.INCREMENT,
  dec: Operation.DECREMENT,
  decrement: Operation.DECREMENT,
  best: Operation.BEST,
  default: Operation.UNSPECIFIED, // the board's default operation
});

export const RANK_MODE = Object.freeze({ unique: RankMode.UNSPECIFIED, competition: RankMode.COMPETITION, dense: RankMode.DENSE });
export const SORT_ORDER = Object.freeze({ higher: SortOrder.HIGHER_IS_BETTER, lower: SortOrder.LOWER_IS_BETTER });
export const TIE_RULE = Object.freeze({ earliest: TieRule.EARLIEST_FIRST, latest: TieRule.LATEST_FIRST, id: TieRule.PLAYER_ID });
export const PERIOD_KIND = Object.freeze({
  none: PeriodKind.UNSPECIFIED,
  daily: PeriodKind.DAILY,
  weekly: PeriodKind.WEEKLY,
  monthly: PeriodKind.MONTHLY,
  cron: PeriodKind.CRON,
  season: PeriodKind.SEASON,
  tournament: PeriodKind.TOURNAMENT,
});
