/**
 * A league's records as inputs of the apply script (apply-leagues.lua; the rules:
 * model/src/leagues.ts): a placement, keyed by the league's period key, and a tier or a
 * settlement, keyed by the league's key; all three on the league's partition.
 */
import { storedBoardName } from "@ladder/model/board-spec";
import { COHORT_SEPARATOR, leagueOf, MAX_TIERS, tierScore } from "@ladder/model/leagues";
import { boardProblem, loggedPlayerIdProblem } from "@ladder/model/validate";
import type { ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import { APPLY_OP } from "../script-codes.js";
import type { PreparedEvent } from "./prepared-event.js";

/** Whether a record is one of a league's own (placement, tier, settlement). */
export const isLeagueRecord = (e: ScoreEvent): boolean => e.leaguePlace !== undefined || e.leagueTier !== undefined || e.leagueSettled;

/** A league record's event, or why the record cannot be applied. */
export function leagueEvent(e: ScoreEvent, offset: bigint, base: PreparedEvent): PreparedEvent | string {
  const rule = e.rules?.league;
  if (boardProblem(e.board) || !e.rules || e.rules.generation <= 0n || !rule) return "league record names no defined league";
  const league = leagueOf(rule);
  const generation = { generation: Number(e.rules.generation) };
  const period = e.period;
  if (period === "" || period.includes(COHORT_SEPARATOR)) return `league record: "${period}" is not a period of the league`;
  const common = { ...base, offset, ingestedAtMs: Number(e.ingestedAtMs) };
  if (e.leaguePlace) {
    const bad = loggedPlayerIdProblem(e.playerId);
    if (bad) return `league placement: ${bad}`;
    const { bracket, previousPeriod } = e.leaguePlace;
    if (bracket >= league.brackets) return `league placement: bracket ${bracket} is past the league's ${league.brackets}`;
    if (previousPeriod.includes(COHORT_SEPARATOR)) return `league placement: "${previousPeriod}" is not a period of the league`;
    return {
      ...common,
      board: storedBoardName(e.board, generation, period),
      playerId: e.playerId,
      op: APPLY_OP.PLACE,
      value: league.cohortSize,
      limit: bracket + 1,
      prev: previousPeriod,
      expireAtMs: Number(e.periodExpireAtMs),
      reportId: e.reportId,
    };
  }
  if (e.leagueTier) {
    const bad = loggedPlayerIdProblem(e.playerId);
    if (bad) return `league tier: ${bad}`;
    const { tier, periodStartMs } = e.leagueTier;
    if (tier >= league.tiers || tier >= MAX_TIERS) return `league tier: tier ${tier} is past the league's ${league.tiers}`;
    const start = Number(periodStartMs);
    if (!Number.isSafeInteger(start) || start < 0) return `league tier: period_start_ms ${periodStartMs} is no time`;
    return {
      ...common,
      board: storedBoardName(e.board, generation),
      playerId: e.playerId,
      op: APPLY_OP.TIER,
      value: tierScore(tier, start),
    };
  }
  return { ...common, board: storedBoardName(e.board, generation), op: APPLY_OP.SETTLED, prev: period };
}
