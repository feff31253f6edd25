import { describe, expect, it } from "vitest";
import { seedProblems, type SeedVerdictInput } from "./seed-verdict.js";

const done: SeedVerdictInput = {
  players: 1000,
  board: "lt",
  router: "127.0.0.1:50051",
  waited: true,
  complete: true,
  count: { total: 1000 },
};

describe("seed > verdict", () => {
  it("passes when the router counts at least the players seeded", () => {
    expect(seedProblems(done)).toEqual([]);
    expect(seedProblems({ ...done, count: { total: 1500 } })).toEqual([]);
  });

  it("fails when the router counts fewer, refuses, or the shard nodes stalled", () => {
    expect(seedProblems({ ...done, count: { total: 999 } })).toEqual([
      'the router counts 999 players on board "lt", fewer than the 1,000 seeded',
    ]);
    expect(seedProblems({ ...done, count: { error: "UNAUTHENTICATED: invalid bearer token" } })[0]).toMatch(
      /did not count board "lt": UNAUTHENTICATED/,
    );
    expect(seedProblems({ ...done, complete: false })[0]).toMatch(/stopped applying/);
  });

  it("does not judge the count of a seed that did not wait", () => {
    expect(seedProblems({ ...done, waited: false, complete: false, count: undefined })).toEqual([]);
  });
});
