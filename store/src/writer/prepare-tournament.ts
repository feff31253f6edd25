/**
 * A tournament's records as inputs of the apply script (apply-tournaments.lua; the rules:
 * model/src/tournaments.ts): a join (on the tournament's partition) and a membership (on the
 * player's), each keyed by the tournament's period key; and what a write to a tournament carries
 * so that the shard counts its attempt first.
 */
import { storedBoardName } from "@ladder/model/board-spec";
import { TOURNAMENT_PERIOD, TOURNAMENT_KEPT_MS } from "@ladder/model/tournaments";
import { boardProblem, loggedPlayerIdProblem } from "@ladder/model/validate";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import type { ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import { APPLY_OP } from "../script-codes.js";
import type { PreparedEvent } from "./prepared-event.js";

/** The apply script's ops of a tournament's join and membership. */
export const JOIN_OP = APPLY_OP.JOIN;
export const MEMBER_OP = APPLY_OP.MEMBER;

/** What a write to a board of these rules takes to the apply script: undefined for a board that is no tournament. */
export function tournamentOfRules(rules: BoardRules | undefined): PreparedEvent["tournament"] {
  const t = rules?.tournament;
  return t ? { join: t.joinRequired, max: t.maxAttempts } : undefined;
}

/** A join's or a membership's event, or why the record cannot be applied. */
export function tournamentEvent(e: ScoreEvent, offset: bigint, base: PreparedEvent): PreparedEvent | string {
  const t = e.rules?.tournament;
  if (boardProblem(e.board) || !e.rules || e.rules.generation <= 0n || !t) return "tournament join names no defined tournament";
  const badPlayer = loggedPlayerIdProblem(e.playerId);
  if (badPlayer) return `tournament join: ${badPlayer}`;
  const expireAtMs = Number(t.endMs) + Number(e.rules.close?.graceMs ?? 0n) + TOURNAMENT_KEPT_MS;
  return {
    ...base,
    offset,
    board: storedBoardName(e.board, { generation: Number(e.rules.generation) }, TOURNAMENT_PERIOD),
    playerId: e.playerId,
    op: e.joinTournament ? JOIN_OP : MEMBER_OP,
    value: e.joinTournament ? t.maxSize : 0,
    limit: Number(t.endMs),
    ingestedAtMs: Number(e.ingestedAtMs),
    expireAtMs,
  };
}
