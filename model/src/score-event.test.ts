import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { BoardRulesSchema, Operation, PeriodKind, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { ScoreEventSchema, type BoardPart } from "@ladder/proto/leaderboard/v1/events_pb";
import { ModerationAction } from "@ladder/proto/leaderboard/v1/moderation_pb";
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

describe("encodeScoreEvent on generated updates", () => {
  let seed = 5;
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
  const text = () => pick(["", "a", "é-ü", "x".repeat(rand(200))]);
  const ms = () => pick([0, 1, 1_796_000_000_000, 2 ** 53 - 1]);
  const someRules = [
    undefined,
    rules,
    create(BoardRulesSchema, { maxPoints: 9n, histogramBounds: [1n, 5n], windows: [{ name: "w", periods: 2 }] }),
  ];
  const placed = () => {
    const period = rand(3) ? { id: text(), expireAtMs: ms() } : undefined;
    const n = rand(4);
    const windows = rand(2)
      ? {
          periods: Array.from({ length: n }, text),
          startsMs: Array.from({ length: rand(4) }, ms),
          windowExpireAtMs: Array.from({ length: n }, ms),
          periodExpireAtMs: 0,
        }
      : undefined;
    return { rules: pick(someRules), ...(period ? { period } : {}), ...(windows ? { windows } : {}) };
  };
  // the message's fields of a placed board, written out here: the windows only with a period
  const reference = (p: ReturnType<typeof placed>) => ({
    rules: p.rules,
    period: p.period?.id ?? "",
    periodExpireAtMs: BigInt(p.period?.expireAtMs ?? 0),
    windowPeriods: p.period && p.windows ? p.windows.periods : [],
    windowExpireAtMs: p.period && p.windows ? p.windows.windowExpireAtMs.map(BigInt) : [],
    windowPeriodStartsMs: p.period && p.windows ? p.windows.startsMs.map(BigInt) : [],
  });

  it("writes the bytes protobuf-es's create() gives, for 1,000 updates with and without rules, periods, windows, also-boards and a board left", () => {
    for (let i = 0; i < 1000; i++) {
      const update = {
        board: text(),
        playerId: text(),
        op: pick([Operation.UNSPECIFIED, Operation.SET, Operation.INCREMENT, Operation.BEST]),
        value: pick([0n, 1n, -1n, 2n ** 62n, -(2n ** 63n)]),
        timestampMs: BigInt(ms()),
        eventId: text(),
        metadata: text(),
        reportId: text(),
      };
      const ingested = ms();
      const main = rand(4) ? placed() : undefined;
      const also = Array.from({ length: rand(3) }, () => ({ board: text(), op: pick([Operation.SET, Operation.BEST]), ...placed() }));
      const leave = rand(2) ? { board: text(), op: Operation.UNSPECIFIED, ...placed() } : undefined;
      const ref = toBinary(
        ScoreEventSchema,
        create(ScoreEventSchema, {
          ...update,
          ingestedAtMs: BigInt(ingested),
          ...(main ? reference(main) : {}),
          also: also.map((a) => ({ board: a.board, op: a.op, ...reference(a) })),
          leave: leave ? { board: leave.board, op: leave.op, ...reference(leave) } : undefined,
        }),
      );
      expect(encodeScoreEvent(update, ingested, main, { also, ...(leave ? { leave } : {}) }), `update ${i}`).toEqual(Buffer.from(ref));
    }
  });
});

describe("decodeScoreEvent", () => {
  let seed = 11;
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
  const int64 = () => pick([0n, 1n, -1n, 42n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, BigInt(rand(1e9))]);
  const text = () => pick(["", "a", "é-ü", "\u{1F3C6} cup", "x".repeat(rand(300))]);
  const someRules = () =>
    pick([
      undefined,
      rules,
      create(BoardRulesSchema, {
        maxPoints: int64(),
        generation: BigInt(rand(100)),
        period: PeriodKind.DAILY,
        timeZone: "Europe/Paris",
        keepPeriods: 7,
        histogramBounds: [10n, 100n, BigInt(rand(1e6))],
        windows: [{ name: "3d", periods: 3, combine: WindowCombine.SUM }],
      }),
    ]);
  const part = (): BoardPart =>
    create(ScoreEventSchema, {
      also: [
        {
          board: text(),
          op: pick([Operation.SET, Operation.INCREMENT, Operation.BEST]),
          rules: someRules(),
          period: text(),
          periodExpireAtMs: int64(),
          windowPeriods: Array.from({ length: rand(4) }, text),
          windowExpireAtMs: Array.from({ length: rand(4) }, int64),
          windowPeriodStartsMs: Array.from({ length: rand(4) }, int64),
        },
      ],
    }).also[0]!;
  const event = () =>
    create(ScoreEventSchema, {
      board: text(),
      playerId: text(),
      op: pick([Operation.UNSPECIFIED, Operation.SET, Operation.INCREMENT, Operation.DECREMENT, Operation.BEST]),
      value: int64(),
      timestampMs: int64(),
      eventId: text(),
      ingestedAtMs: int64(),
      rules: someRules(),
      period: text(),
      periodExpireAtMs: int64(),
      also: Array.from({ length: rand(3) }, part),
      leave: rand(2) ? part() : undefined,
      erase: rand(2) === 1,
      eraseBoards: Array.from({ length: rand(3) }, text),
      windowPeriods: Array.from({ length: rand(4) }, text),
      windowExpireAtMs: Array.from({ length: rand(4) }, int64),
      windowPeriodStartsMs: Array.from({ length: rand(4) }, int64),
      metadata: text(),
      deleteBoard: rand(2) === 1,
      reportId: text(),
      closePeriod: rand(2) === 1,
      moderation: rand(3)
        ? undefined
        : { action: ModerationAction.HIDE, playerId: text(), board: text(), atMs: int64(), partitions: rand(99) },
      joinTournament: rand(2) === 1,
      tournamentMember: rand(2) === 1,
      leaguePlace: rand(3) ? undefined : { bracket: rand(100), previousPeriod: text() },
      leagueTier: rand(3) ? undefined : { tier: rand(50), periodStartMs: int64() },
      leagueSettled: rand(2) === 1,
      teamMember: rand(3) ? undefined : { team: text() },
      teamContribution: rand(3) ? undefined : { team: text(), points: int64(), asOf: int64(), left: rand(2) === 1 },
    });

  it("decodes every field as protobuf-es's fromBinary does, on 2,000 generated records", () => {
    for (let i = 0; i < 2000; i++) {
      const bytes = toBinary(ScoreEventSchema, event());
      const want = fromBinary(ScoreEventSchema, bytes);
      const got = decodeScoreEvent(bytes);
      expect(equals(ScoreEventSchema, got, want), `record ${i}`).toBe(true);
      expect(got).toEqual(want);
    }
  });

  it("reads repeated int64s written one per tag too, and skips fields it does not know", () => {
    const w = new BinaryWriter();
    w.tag(2, WireType.LengthDelimited).string("p-9");
    w.tag(16, WireType.Varint).int64(-5n);
    w.tag(16, WireType.Varint).int64(7n);
    w.tag(99, WireType.Varint).int64(3n);
    w.tag(98, WireType.LengthDelimited).string("later");
    w.tag(17, WireType.LengthDelimited).fork().int64(1n).int64(2n).join();
    const got = decodeScoreEvent(w.finish());
    expect([got.playerId, got.windowExpireAtMs, got.windowPeriodStartsMs]).toEqual(["p-9", [-5n, 7n], [1n, 2n]]);
  });

  it("throws on bytes that are not a record, as fromBinary does", () => {
    const bytes = toBinary(ScoreEventSchema, event());
    for (const bad of [
      bytes.subarray(0, bytes.length - 1),
      Uint8Array.of(0x0a, 0x05, 0x61),
      Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
    ]) {
      expect(() => fromBinary(ScoreEventSchema, bad)).toThrow();
      expect(() => decodeScoreEvent(bad)).toThrow();
    }
  });
});
