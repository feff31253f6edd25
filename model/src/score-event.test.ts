import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BoardRulesSchema, Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { ScoreEventSchema } from "@ladder/proto/leaderboard/v1/events_pb";
import { decodeScoreEvent, encodeScoreEvent } from "./score-event.js";

// The reference: protobuf-es's create() of the same fields, written out here field by field.
const rules = create(BoardRulesSchema, { maxPoints: 5000n, generation: 1_796_000_000_000n, resolutionMs: 1000 });
const fields = { board: "arena", playerId: "p-1", op: Operation.INCREMENT, value: 42n, timestampMs: 1_796_000_100_000n, eventId: "gs-1:7" };

describe("encodeScoreEvent", () => {
  it("writes the bytes protobuf-es's create() gives, for a bare update", () => {
    const ref = toBinary(ScoreEventSchema, create(ScoreEventSchema, { ...fields, ingestedAtMs: 1_796_000_200_000n }));
    expect(encodeScoreEvent(fields, 1_796_000_200_000)).toEqual(Buffer.from(ref));
  });

  it("writes the bytes protobuf-es's create() gives, with rules, a period, windows, also-boards, a board left, metadata and a report", () => {
    const ref = toBinary(
      ScoreEventSchema,
      create(ScoreEventSchema, {
        ...fields,
        metadata: '{"car":"red"}',
        reportId: "r-9",
        ingestedAtMs: 1_796_000_200_000n,
        rules,
        period: "2026-12-02",
        periodExpireAtMs: 1_797_000_000_000n,
        windowPeriods: ["2026-12-01", "2026-12-02", "2026-12-03"],
        windowPeriodStartsMs: [1n, 2n, 3n],
        windowExpireAtMs: [10n, 20n],
        also: [
          { board: "division-3", op: Operation.SET, rules },
          { board: "weekly", op: Operation.BEST, period: "2026-W49", periodExpireAtMs: 5n },
        ],
        leave: { board: "division-2", op: Operation.UNSPECIFIED },
      }),
    );
    const got = encodeScoreEvent(
      { ...fields, metadata: '{"car":"red"}', reportId: "r-9" },
      1_796_000_200_000,
      {
        rules,
        period: { id: "2026-12-02", expireAtMs: 1_797_000_000_000 },
        windows: {
          periods: ["2026-12-01", "2026-12-02", "2026-12-03"],
          startsMs: [1, 2, 3],
          windowExpireAtMs: [10, 20],
          periodExpireAtMs: 1_797_000_000_000,
        },
      },
      {
        also: [
          { board: "division-3", op: Operation.SET, rules },
          { board: "weekly", op: Operation.BEST, period: { id: "2026-W49", expireAtMs: 5 } },
        ],
        leave: { board: "division-2", op: Operation.UNSPECIFIED },
      },
    );
    expect(got).toEqual(Buffer.from(ref));
    const back = decodeScoreEvent(got);
    expect([back.also.map((a) => a.board), back.leave?.board, back.windowPeriods.length, back.rules?.maxPoints]).toEqual([
      ["division-3", "weekly"],
      "division-2",
      3,
      5000n,
    ]);
  });
});
