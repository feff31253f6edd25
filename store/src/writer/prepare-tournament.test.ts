import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind } from "@ladder/proto/leaderboard/v1/common_pb";
import { normalizeDefinition } from "@ladder/model/board-definitions";
import { encodeScoreEvent, encodeTournamentJoin } from "@ladder/model/score-event";
import { TOURNAMENT_KEPT_MS } from "@ladder/model/tournaments";
import { loadConfig } from "@ladder/platform/config";
import { APPLY_OP } from "../script-codes.js";
import { prepareEvent } from "./prepare-event.js";

const boards = loadConfig({}).boards;
const START = Date.UTC(2026, 11, 10, 12);
const END = START + 3_600_000;
const { definition } = normalizeDefinition(
  create(BoardDefinitionSchema, {
    name: "cup",
    defaultOp: Operation.INCREMENT,
    rules: {
      period: PeriodKind.TOURNAMENT,
      tournament: { category: "c", startMs: BigInt(START), endMs: BigInt(END), joinRequired: true, maxSize: 40, maxAttempts: 3 },
      close: { graceMs: 5000n },
    },
  }),
  START - 1000,
);
const rules = definition!.rules!;
const stored = `cup#${rules.generation}@T`;

describe("replay > tournament records", () => {
  it("makes a join of the tournament's period key, with its size limit and end", () => {
    const { events, problem } = prepareEvent(encodeTournamentJoin("cup", "alice", rules, START, false), 7n, boards);
    expect(problem).toBeUndefined();
    expect(events).toEqual([
      expect.objectContaining({
        offset: 7n,
        board: stored,
        playerId: "alice",
        op: APPLY_OP.JOIN,
        value: 40,
        limit: END,
        ingestedAtMs: START,
        expireAtMs: END + 5000 + TOURNAMENT_KEPT_MS,
      }),
    ]);
  });

  it("makes a membership of the player's partition", () => {
    const { events } = prepareEvent(encodeTournamentJoin("cup", "alice", rules, START, true), 8n, boards);
    expect(events).toEqual([expect.objectContaining({ board: stored, playerId: "alice", op: APPLY_OP.MEMBER })]);
  });

  it("gives a write to a tournament its attempts rule, and other boards none", () => {
    const write = encodeScoreEvent(
      { board: "cup", playerId: "alice", op: Operation.INCREMENT, value: 5n, timestampMs: BigInt(START + 1), eventId: "" },
      START + 1,
      { rules, period: { id: "T", expireAtMs: END + 5000 + TOURNAMENT_KEPT_MS } },
    );
    expect(prepareEvent(write, 9n, boards).events).toEqual([
      expect.objectContaining({ board: stored, op: APPLY_OP.INCREMENT, tournament: { join: true, max: 3 } }),
    ]);
    const plain = encodeScoreEvent(
      { board: "g", playerId: "a", op: Operation.SET, value: 1n, timestampMs: BigInt(START), eventId: "" },
      START,
    );
    expect(prepareEvent(plain, 10n, boards).events[0]!.tournament).toBeUndefined();
  });

  it("turns a join without a tournament into a no-op that advances the offset", () => {
    const noTournament = encodeTournamentJoin("cup", "alice", { ...rules, tournament: undefined }, START, false);
    expect(prepareEvent(noTournament, 11n, boards)).toMatchObject({
      events: [{ op: 0, offset: 11n }],
      problem: /names no defined tournament/,
    });
  });
});
