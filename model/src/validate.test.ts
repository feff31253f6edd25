import { describe, expect, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "./board-spec.js";
import {
  boardPrefixProblem,
  boardProblem,
  loggedPlayerIdProblem,
  playerIdProblem,
  updateProblem,
  viewProblem,
  type UpdateFields,
} from "./validate.js";
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

  it("refuses player ids with invisible or format characters, or only or surrounding whitespace (the policy)", () => {
    const invisible = [
      ...[0x200b, 0x200c, 0x200d, 0x2060, 0xfeff], // zero-width, word joiner, BOM
      ...[0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069], // bidi
      ...[0x2028, 0x2029], // line and paragraph separators
      ...[0x00ad, 0x061c, 0x2061, 0xfff9, 0xe0001], // other Cf: soft hyphen, Arabic letter mark, function application, annotation, tag
    ];
    for (const cp of invisible) {
      const c = String.fromCodePoint(cp);
      for (const id of [c, `a${c}b`, `${c}ab`, `ab${c}`])
        expect(playerIdProblem(id), `U+${cp.toString(16)}`).toBe(
          `player_id contains U+${cp.toString(16).toUpperCase().padStart(4, "0")}, an invisible (format or separator) character`,
        );
    }
    for (const cp of [0x00, 0x09, 0x0a, 0x1f, 0x7f, 0x85, 0x9f])
      expect(playerIdProblem(`a${String.fromCharCode(cp)}b`)).toMatch(/^player_id contains control characters \(U\+00/);
    for (const id of [" ", "   ", "\u00a0", "\u3000", "\u2003 "])
      expect(playerIdProblem(id), JSON.stringify(id)).toBe("player_id is only whitespace");
    for (const id of [" a", "a ", "\u00a0a", "a\u3000"]) expect(playerIdProblem(id)).toBe("player_id starts or ends with whitespace");
    for (const id of ["p-1", "Ann Lee", "é", "😀", "田中", "a\u0301", "lp-007", "h00", "player-000010", "ghost"])
      expect(playerIdProblem(id), id).toBeUndefined();
  });

  it("keeps the score log's rule for records: what ingest accepted before the policy is still applied", () => {
    for (const id of ["\u200b", "a\ufeffb", "a\u2028b", " ", "a "]) expect(loggedPlayerIdProblem(id)).toBeUndefined();
    expect(loggedPlayerIdProblem("a\nb")).toMatch(/control/);
    expect(loggedPlayerIdProblem("")).toMatch(/empty/);
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
