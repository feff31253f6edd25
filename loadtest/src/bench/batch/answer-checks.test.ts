import { create } from "@bufbuild/protobuf";
import { EntrySchema } from "@ladder/proto/leaderboard/v1/common_pb";
import {
  GetRankResponseSchema,
  GetRanksResponseSchema,
  GetStandingResponseSchema,
  GetTopResponseSchema,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { describe, expect, it } from "vitest";
import { pageProblems, PageWalk, ranksProblems, standingProblems, type PlainEntry } from "./answer-checks.js";

const entry = (playerId: string, rank: number, score = 1000 - rank) =>
  create(EntrySchema, { playerId, rank: BigInt(rank), score: BigInt(score), reachedAtMs: 5n });
const page = (entries: Array<ReturnType<typeof entry>>, total: bigint, nextCursor: string, previousCursor = "") =>
  create(GetTopResponseSchema, { entries, total, nextCursor, previousCursor });
const plainOf = (e: ReturnType<typeof entry>): PlainEntry => ({
  playerId: e.playerId,
  rank: Number(e.rank),
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
});

describe("bench > batch > answer checks", () => {
  const asked = ["c", "a", "b"];
  const single = new Map(
    [
      ["a", 3],
      ["b", 7],
      ["c", 9],
    ].map(([p, r]) => [p as string, create(GetRankResponseSchema, { entry: entry(p as string, r as number), total: 10n })]),
  );
  const ranks = (list: Array<[string, number, number?]>, total = 10n, missing: string[] = []) =>
    create(GetRanksResponseSchema, {
      entries: list.map(([p, r, among], i) => ({ entry: entry(p, r), rankAmong: among ?? i + 1 })),
      missing,
      total,
    });

  it("accepts GetRanks equal to GetRank of each player, best first", () => {
    expect(
      ranksProblems(
        asked,
        ranks([
          ["a", 3],
          ["b", 7],
          ["c", 9],
        ]),
        single,
        10,
      ),
    ).toEqual([]);
  });

  it("finds what GetRanks got wrong", () => {
    expect(
      ranksProblems(
        asked,
        ranks([
          ["b", 7],
          ["a", 3],
          ["c", 9],
        ]),
        single,
        10,
      ).join("\n"),
    ).toMatch(/not best first/);
    expect(
      ranksProblems(
        asked,
        ranks([
          ["a", 3],
          ["b", 8],
          ["c", 9],
        ]),
        single,
        10,
      ).join("\n"),
    ).toMatch(/b: GetRanks b 992 pts rank 8 .*GetRank b 993 pts rank 7/);
    expect(
      ranksProblems(
        asked,
        ranks([
          ["a", 3],
          ["b", 7, 3],
          ["c", 9],
        ]),
        single,
        10,
      ).join("\n"),
    ).toMatch(/rank_among 3, not 2/);
    expect(
      ranksProblems(
        asked,
        ranks(
          [
            ["a", 3],
            ["b", 7],
          ],
          10n,
          ["c"],
        ),
        single,
        10,
      ).join("\n"),
    ).toMatch(/1 players missing/);
    expect(
      ranksProblems(
        asked,
        ranks(
          [
            ["a", 3],
            ["b", 7],
            ["c", 9],
          ],
          11n,
        ),
        single,
        10,
      ).join("\n"),
    ).toMatch(/total 11, the board holds 10/);
    expect(
      ranksProblems(
        asked,
        ranks([
          ["a", 3],
          ["a", 3],
          ["c", 9],
        ]),
        single,
        10,
      ).join("\n"),
    ).toMatch(/lists a twice/);
  });

  it("accepts GetStanding equal to GetRank on each board, with its percentages", () => {
    const refs = [
      { board: "all", period: "", window: "" },
      { board: "d", period: "2026-12-02", window: "sum7" },
    ];
    const one = [
      create(GetRankResponseSchema, { entry: entry("p", 25), total: 100n }),
      create(GetRankResponseSchema, { entry: entry("p", 1), total: 4n }),
    ];
    const standing = (over: Record<string, unknown> = {}) =>
      create(GetStandingResponseSchema, {
        standings: [
          { board: refs[0], found: true, entry: entry("p", 25), total: 100n, topPercent: 25, percentile: 75, ...over },
          { board: refs[1], found: true, entry: entry("p", 1), total: 4n, topPercent: 25, percentile: 75 },
        ],
      });
    expect(standingProblems(refs, standing(), one)).toEqual([]);
    expect(standingProblems(refs, standing({ topPercent: 24 }), one).join("\n")).toMatch(/top_percent 24/);
    expect(standingProblems(refs, standing({ percentile: 76 }), one).join("\n")).toMatch(/percentile 76/);
    expect(standingProblems(refs, standing({ found: false, entry: undefined }), one).join("\n")).toMatch(/all: not found/);
    expect(standingProblems(refs, standing({ board: refs[1] }), one).join("\n")).toMatch(
      /standing 0 is of d period 2026-12-02 window sum7, asked all/,
    );
    expect(standingProblems(refs, standing({ entry: entry("p", 26) }), one).join("\n")).toMatch(/GetStanding p 974 pts rank 26/);
    expect(standingProblems(refs, create(GetStandingResponseSchema, {}), one).join("\n")).toMatch(/0 standings for 2 boards/);
  });

  it("walks pages: every rank once, in order, scores never rising, a next_cursor on all but the last", () => {
    const w = new PageWalk();
    w.add(page([entry("a", 1), entry("b", 2)], 4n, "n1"));
    w.add(page([entry("c", 3), entry("d", 4)], 4n, ""));
    expect(w.depth).toBe(4);
    expect(w.end()).toEqual([]);
  });

  it("finds a walk's skipped, repeated and unordered entries, and a wrong end", () => {
    const skip = new PageWalk();
    skip.add(page([entry("a", 1), entry("b", 2)], 4n, "n1"));
    skip.add(page([entry("d", 4)], 4n, ""));
    expect(skip.end().join("\n")).toMatch(/rank 4 \(d\) after rank 2[\s\S]*3 distinct players seen, total 4/);
    const twice = new PageWalk();
    twice.add(page([entry("a", 1), entry("b", 2)], 3n, "n1"));
    twice.add(page([entry("b", 3, 990)], 3n, ""));
    expect(twice.end().join("\n")).toMatch(/b seen twice/);
    const rising = new PageWalk();
    rising.add(page([entry("a", 1, 5), entry("b", 2, 6)], 2n, ""));
    expect(rising.end().join("\n")).toMatch(/score 6 at rank 2 after 5/);
    const early = new PageWalk();
    early.add(page([entry("a", 1)], 2n, ""));
    expect(early.end().join("\n")).toMatch(/no next_cursor at rank 1 of 2/);
    const late = new PageWalk();
    late.add(page([entry("a", 1)], 1n, "more"));
    expect(late.end().join("\n")).toMatch(/a next_cursor after the last rank 1[\s\S]*stopped at rank 1/);
    const moving = new PageWalk();
    moving.add(page([entry("a", 1)], 2n, "n"));
    moving.add(page([entry("b", 2)], 3n, ""));
    expect(moving.end().join("\n")).toMatch(/total 3 at rank 2, 2 before/);
  });

  it("checks a page against the walk's entries at its ranks and its cursors", () => {
    const two = [entry("c", 3), entry("d", 4)];
    const want = two.map(plainOf);
    expect(pageProblems("p", page(two, 9n, "n", "p"), want, 9)).toEqual([]);
    expect(pageProblems("p", page(two, 9n, "", "p"), want, 9).join("\n")).toMatch(/no next_cursor at rank 4 of 9/);
    expect(pageProblems("p", page(two, 9n, "n", ""), want, 9).join("\n")).toMatch(/no previous_cursor at rank 3/);
    expect(pageProblems("p", page([entry("a", 1)], 9n, "n", "x"), [plainOf(entry("a", 1))], 9).join("\n")).toMatch(
      /a previous_cursor on the page of rank 1/,
    );
    expect(pageProblems("p", page([two[1]!, two[0]!], 9n, "n", "p"), want, 9).join("\n")).toMatch(/entry 0 is d/);
    expect(pageProblems("p", page(two.slice(0, 1), 9n, "n", "p"), want, 9).join("\n")).toMatch(/1 entries, expected 2/);
  });
});
