import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { GetRankResponseSchema, LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { rankResponse, type EntryFields } from "./rank-response.js";
import { serviceDefinition } from "@ladder/platform/grpc-adapter";

/** What protobuf-es writes for the same response (the reference the hand encoder must equal). */
const reference = (e: EntryFields, total: number) =>
  Buffer.from(
    toBinary(
      GetRankResponseSchema,
      create(GetRankResponseSchema, {
        entry: {
          playerId: e.playerId,
          score: BigInt(e.points),
          rank: BigInt(e.rank),
          reachedAtMs: BigInt(e.reachedAtMs),
          metadata: e.metadata,
          tiedRank: BigInt(e.tiedRank ?? 0),
        },
        total: BigInt(total),
      }),
    ),
  );

const serialize = serviceDefinition(LeaderboardService).getRank!.responseSerialize;

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
      };
      const total = pick(numbers);
      const want = reference(e, total).toString("hex");
      const msg = rankResponse(e, total);
      expect(Buffer.from(serialize(msg)).toString("hex")).toBe(want);
      expect(Buffer.from(toBinary(GetRankResponseSchema, msg)).toString("hex")).toBe(want);
    }
  });
});
