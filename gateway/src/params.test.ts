import { describe, expect, it } from "vitest";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { toHttpFailure } from "./http-errors.js";
import { boardRef, Params, queryOf } from "./params.js";

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

  it("refuses a parameter that is not valid percent-encoded UTF-8 with 400 naming it, before URLSearchParams makes U+FFFD of it", () => {
    const query = (q: string) => queryOf(new URL(`http://gateway/api/boards/b/rank?${q}`));
    for (const [q, name] of [
      ["player=%ff%fe", "player"],
      ["player=ok&rank_mode=%c3", "rank_mode"],
      ["player=%ED%A0%80", "player"], // a surrogate's bytes: not UTF-8
      ["player=%zz", "player"],
    ])
      expect(refusal(() => query(q!))).toEqual({
        status: 400,
        headers: {},
        body: { error: { code: "INVALID_ARGUMENT", message: `parameter "${name}" is not valid percent-encoded UTF-8` } },
      });
    expect(refusal(() => query("%ff=1")).body.error.message).toMatch(/^a parameter's name \("%ff"\) is not valid/);
    expect(query("player=al%20ice+b&x=%E2%82%AC&&flag").get("x")).toBe("€");
    expect(query("player=al%20ice+b").get("player")).toBe("al ice b");
  });

  it("holds player ids to the model's policy, naming the parameter and the rule", () => {
    const player = (q: string) => params(q, ["player"]).player("player");
    expect(player("player=Ann%20Lee")).toBe("Ann Lee");
    expect(refusal(() => player("player=a%E2%80%8Bb")).body.error.message).toBe(
      'parameter "player": player_id contains U+200B, an invisible (format or separator) character',
    );
    expect(refusal(() => player("player=%20")).body.error.message).toBe('parameter "player": player_id is only whitespace');
    expect(refusal(() => player("player=ann%20")).body.error.message).toBe('parameter "player": player_id starts or ends with whitespace');
    expect(refusal(() => player("player=")).body.error.message).toBe('parameter "player" is required');
  });
});
