import { describe, expect, it } from "vitest";
import { rngFor } from "../../workload/rng.js";
import { samplePlayers, sampleScores } from "./apply-check.js";
import { benchBoards, benchDays, DAYS } from "./bench-boards.js";
import { playerBlocks } from "./daily-players.js";

describe("bench > boards > apply check", () => {
  it("samples distinct players, sorted, no more than there are", () => {
    const s = samplePlayers(10_000, 300, rngFor(1, 2).nextInt);
    expect(s).toHaveLength(300);
    expect(new Set(s).size).toBe(300);
    expect(s).toEqual([...s].sort((a, b) => a - b));
    expect(samplePlayers(5, 300, rngFor(1, 2).nextInt)).toEqual([0, 1, 2, 3, 4]);
  });

  it("gives the sampled players the scores the pre-fill gave them", () => {
    const { windowed } = benchBoards(Date.UTC(2026, 11, 2, 5));
    const days = benchDays(windowed.spec, Date.UTC(2026, 11, 2, 5), 0).slice(0, DAYS);
    const filled = [...playerBlocks(3, 0, 2500, windowed.spec, days)].flatMap((b) => b.scores);
    const sample = [0, 999, 1000, 2499];
    const got = sampleScores(3, sample, windowed.spec, days);
    for (const i of sample) expect(got.get(i)).toEqual(filled[i]);
  });
});
