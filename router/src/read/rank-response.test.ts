import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  GetAroundResponseSchema,
  GetRankResponseSchema,
  GetTopResponseSchema,
  LeaderboardService,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { aroundResponse, rankResponse, topPageResponse, type EntryFields } from "./rank-response.js";
import { serviceDefinition } from "@ladder/platform/grpc-adapter";

/** What protobuf-es writes for the same response (the reference the hand encoder must equal). */
const reference = (e: EntryFields, total: number) =>
  Buffer.from(
    toBinary(
      GetRankResponseSchema,
      create(GetRankResponseSchema, {
        entry: {
          playerId: e.playerId,
          score: e.columns ? e.columns[0]! : BigInt(e.points),
          rank: BigInt(e.rank),
          reachedAtMs: BigInt(e.reachedAtMs),
          metadata: e.metadata,
          tiedRank: BigInt(e.tiedRank ?? 0),
          columns: e.columns ? [...e.columns] : [],
        },
        total: BigInt(total),
      }),
    ),
  );

const service = serviceDefinition(LeaderboardService);
/** Values of a board with columns (int64s at both ends, around 2^53 and 0). */
const INT64S = [0n, 1n, -1n, 127n, 128n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n)];
const columnsOf = (rand: () => number) =>
  rand() < 0.3 ? { columns: Array.from({ length: 2 + Math.floor(rand() * 3) }, () => INT64S[Math.floor(rand() * INT64S.length)]!) } : {};
const serialize = service.getRank!.responseSerialize;

describe("router > read > rank response", () => {
  it("encodes exactly what toBinary encodes, and the message holds the same fields", () => {
    let seed = 99;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const numbers = [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 31 - 1, 2 ** 32, 1_796_426_854_884, Number.MAX_SAFE_INTEGER];
    const signed = [...numbers, -1, -128, -(2 ** 31), -1_796_426_854_884, Number.MIN_SAFE_INTEGER];
    const ids = ["", "a", "p:000000012345", "é🎮 joueur", "x".repeat(200)];
    const metas = ["", '{"clan":"wolves"}', "ü".repeat(90)];
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    for (let i = 0; i < 2000; i++) {
      const e: EntryFields = {
        playerId: pick(ids),
        points: pick(signed),
        rank: pick(numbers),
        reachedAtMs: pick(signed),
        metadata: pick(metas),
        ...(rand() < 0.5 ? { tiedRank: pick(numbers) } : {}),
        ...columnsOf(rand),
      };
      const total = pick(numbers);
      const want = reference(e, total).toString("hex");
      const msg = rankResponse(e, total);
      expect(Buffer.from(serialize(msg)).toString("hex")).toBe(want);
      expect(Buffer.from(toBinary(GetRankResponseSchema, msg)).toString("hex")).toBe(want);
    }
  });
});

describe("router > read > page responses", () => {
  it("encode GetAround's and GetTop's answers exactly as toBinary does, pages of 0 to 40 entries with and without cursors", () => {
    let seed = 7;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const numbers = [0, 1, 127, 128, 16_384, 2 ** 32, 1_796_426_854_884, Number.MAX_SAFE_INTEGER];
    const signed = [...numbers, -1, -(2 ** 31), Number.MIN_SAFE_INTEGER];
    const texts = ["", "a", "é🎮 joueur", "x".repeat(300)];
    const cursors = ["", "eyJzIjoiYiIsInYiOiIiLCJrIjoxMjMsInAiOiJwIiwiYiI6ZmFsc2V9", "c".repeat(200)];
    for (let i = 0; i < 500; i++) {
      const entries: EntryFields[] = Array.from({ length: Math.floor(rand() * 41) }, () => ({
        playerId: pick(texts),
        points: pick(signed),
        rank: pick(numbers),
        reachedAtMs: pick(signed),
        metadata: pick(texts),
        ...(rand() < 0.5 ? { tiedRank: pick(numbers) } : {}),
        ...columnsOf(rand),
      }));
      const total = pick(numbers);
      const asEntries = entries.map((e) => ({
        playerId: e.playerId,
        score: e.columns ? e.columns[0]! : BigInt(e.points),
        rank: BigInt(e.rank),
        reachedAtMs: BigInt(e.reachedAtMs),
        metadata: e.metadata,
        tiedRank: BigInt(e.tiedRank ?? 0),
        columns: e.columns ? [...e.columns] : [],
      }));
      const around = aroundResponse(entries, total);
      const wantAround = Buffer.from(
        toBinary(GetAroundResponseSchema, create(GetAroundResponseSchema, { entries: asEntries, total: BigInt(total) })),
      ).toString("hex");
      expect(Buffer.from(service.getAround!.responseSerialize(around)).toString("hex")).toBe(wantAround);
      expect(Buffer.from(toBinary(GetAroundResponseSchema, around)).toString("hex")).toBe(wantAround);
      const [next, previous] = [pick(cursors), pick(cursors)];
      const top = topPageResponse(entries, total, next, previous);
      const wantTop = Buffer.from(
        toBinary(
          GetTopResponseSchema,
          create(GetTopResponseSchema, { entries: asEntries, total: BigInt(total), nextCursor: next, previousCursor: previous }),
        ),
      ).toString("hex");
      expect(Buffer.from(service.getTop!.responseSerialize(top)).toString("hex")).toBe(wantTop);
      expect(Buffer.from(toBinary(GetTopResponseSchema, top)).toString("hex")).toBe(wantTop);
    }
  });
});
