import { describe, expect, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "./board-spec.js";
import { boardPrefixProblem, boardProblem, playerIdProblem, updateProblem, viewProblem, type UpdateFields } from "./validate.js";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";

const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]); // what loadConfig({}) holds
const now = Date.UTC(2026, 10, 30);
const ok: UpdateFields = { board: "global", playerId: "p1", op: Operation.SET, value: 10n, timestampMs: BigInt(now), eventId: "" };
const problem = (patch: Partial<UpdateFields>) => updateProblem({ ...ok, ...patch }, boards.forBoard(patch.board ?? ok.board), now, 60_000);

describe("model > validate", () => {
  it("names a view a view in its problems", () => {
    expect(viewProblem("audit-nov")).toBeUndefined();
    expect(viewProblem("")).toBe("view is empty: it must be 1 to 64 of A-Z a-z 0-9 _ - . :");
    expect(viewProblem("a b")).toBe('view may contain only A-Z a-z 0-9 _ - . :, got "a b"');
    expect(boardProblem("a b")).toBe('board may contain only A-Z a-z 0-9 _ - . :, got "a b"');
  });

  it("accepts a well-formed update", () => {
    expect(problem({})).toBeUndefined();
    expect(problem({ op: Operation.INCREMENT, value: -5n })).toBeUndefined();
    expect(problem({ playerId: "joueur-é-🎮" })).toBeUndefined();
  });

  it("names what is wrong with boards and player ids", () => {
    expect(boardProblem("")).toMatch(/empty/);
    expect(boardPrefixProblem("")).toBeUndefined();
    expect(boardPrefixProblem("division:")).toBeUndefined();
    expect(boardPrefixProblem("*")).toBe('prefix may contain only A-Z a-z 0-9 _ - . :, got "*"');
    expect(boardPrefixProblem("x".repeat(65))).toBe("prefix is 65 characters long, more than 64");
    expect(boardProblem("x".repeat(65))).toBe("board is 65 characters long, more than 64");
    expect(boardProblem("a b")).toMatch(/only/);
    expect(playerIdProblem("")).toMatch(/empty/);
    expect(playerIdProblem("é".repeat(65))).toBe("player_id is 130 bytes long, more than 128");
    expect(playerIdProblem("a\nb")).toMatch(/control/);
    expect(playerIdProblem("a\ud800b")).toMatch(/UTF-8/);
  });

  it("rejects values, operations and times outside the board", () => {
    expect(problem({ value: -1n })).toMatch(/outside the board's range/);
    expect(problem({ value: 2n ** 31n })).toMatch(/outside the board's range/);
    expect(problem({ op: Operation.INCREMENT, value: 2n ** 31n })).toMatch(/range width/);
    expect(problem({ op: Operation.UNSPECIFIED })).toMatch(/not a valid operation/);
    expect(problem({ op: 7 as Operation })).toMatch(/not a valid operation/);
    expect(problem({ timestampMs: 1000n })).toMatch(/time range/);
    expect(problem({ timestampMs: BigInt(now + 120_000) })).toMatch(/future/);
    expect(problem({ eventId: "e".repeat(129) })).toMatch(/event_id/);
  });
});
