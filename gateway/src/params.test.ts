import { describe, expect, it } from "vitest";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { toHttpFailure } from "./http-errors.js";
import { boardRef, Params } from "./params.js";

const params = (query: string, takes: string[]) => new Params(new URLSearchParams(query), takes);
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return toHttpFailure(err);
  }
  throw new Error("not refused");
};

describe("gateway > query parameters", () => {
  it("reads text, integers and rank modes; absent ones are empty, 0, unspecified", () => {
    const p = params("player=al%20ice&limit=25&offset=18446744073709551615&rank_mode=dense&access_token=t", [
      "player",
      "limit",
      "offset",
      "rank_mode",
      "radius",
    ]);
    expect([
      p.text("player"),
      p.required("player"),
      p.uint32("limit"),
      p.uint64("offset"),
      p.rankMode(),
      p.uint32("radius"),
      p.text("cursor"),
    ]).toEqual(["al ice", "al ice", 25, 2n ** 64n - 1n, RankMode.DENSE, 0, ""]);
    expect(params("", ["rank_mode"]).rankMode()).toBe(RankMode.UNSPECIFIED);
  });

  it("refuses unknown, repeated, missing and malformed parameters with 400 INVALID_ARGUMENT naming them", () => {
    expect(refusal(() => params("limt=5", ["limit"]))).toEqual({
      status: 400,
      headers: {},
      body: { error: { code: "INVALID_ARGUMENT", message: 'unknown parameter "limt" (this endpoint takes limit)' } },
    });
    expect(refusal(() => params("limit=5&limit=6", ["limit"])).body.error.message).toBe('parameter "limit" given twice');
    expect(refusal(() => params("player=", ["player"]).required("player")).body.error.message).toBe('parameter "player" is required');
    for (const bad of ["-1", "1.5", "ten", "4294967296", "0x10"])
      expect(refusal(() => params(`limit=${bad}`, ["limit"]).uint32("limit")).status).toBe(400);
    expect(refusal(() => params("rank_mode=olympic", ["rank_mode"]).rankMode()).body.error.message).toMatch(/not competition or dense/);
  });

  it("reads board references as the CLI writes them: board[@period][~window]", () => {
    expect(["global", "daily@2026-11-30", "daily~7d", "daily@2026-11-30~7d"].map(boardRef)).toEqual([
      { board: "global", period: "", window: "" },
      { board: "daily", period: "2026-11-30", window: "" },
      { board: "daily", period: "", window: "7d" },
      { board: "daily", period: "2026-11-30", window: "7d" },
    ]);
    expect(refusal(() => boardRef("@x")).status).toBe(400);
  });
});
