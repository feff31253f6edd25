import { describe, expect, it } from "vitest";
import { MAX_REWARDED_RANK, resolveRewards, rewardsProblem, type RewardRangeInput } from "./rewards.js";

const ranks = (reward: string, from: number, to = 0): RewardRangeInput => ({
  reward,
  fromRank: BigInt(from),
  toRank: BigInt(to),
  topPercent: 0,
});
const top = (reward: string, percent: number): RewardRangeInput => ({ reward, fromRank: 0n, toRank: 0n, topPercent: percent });

// the oracle: proto's RewardRange, rank by rank: the first declared range whose ranks hold it
function oracle(ranges: RewardRangeInput[], size: number): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  for (let rank = 1; rank <= size; rank++) {
    let got: string | undefined;
    for (const r of ranges) {
      let inside: boolean;
      if (r.topPercent !== 0) inside = rank * 100 <= Math.ceil((size * r.topPercent) / 100) * 100;
      else inside = rank >= Number(r.fromRank) && rank <= Number(r.toRank === 0n ? r.fromRank : r.toRank);
      if (inside && rank <= MAX_REWARDED_RANK) {
        got = r.reward;
        break;
      }
    }
    out.push(got);
  }
  return out;
}

describe("model > rewards", () => {
  const declared = [ranks("gold", 1), ranks("silver", 2, 10), top("top1pct", 1), top("top10pct", 10), ranks("tail", 500, 600)];
  for (const size of [0, 1, 5, 10, 11, 99, 100, 101, 550, 1000, 12_345]) {
    it(`gives each rank the first range's reward, as the oracle does, on ${size} entries`, () => {
      const got = resolveRewards(declared, size);
      const want = oracle(declared, size);
      expect(Array.from({ length: size }, (_, i) => got.rewardAt(i + 1))).toEqual(want);
      expect(got.lastRank).toBe(want.findLastIndex((r) => r !== undefined) + 1);
    });
  }

  it("rewards no rank past 10,000", () => {
    const got = resolveRewards([top("all", 100)], 20_000);
    expect([got.lastRank, got.rewardAt(10_000), got.rewardAt(10_001)]).toEqual([10_000, "all", undefined]);
  });

  it("refuses bad ranges, naming the field and the limit", () => {
    expect(rewardsProblem(declared)).toBeUndefined();
    expect(rewardsProblem([ranks("", 1)])).toMatch(/^close.rewards\[0\].reward: reward is empty/);
    expect(rewardsProblem([ranks("a b", 1)])).toMatch(/^close.rewards\[0\].reward: reward may contain only/);
    expect(rewardsProblem([{ ...ranks("x", 1), topPercent: 5 }])).toMatch(/exactly one of the two/);
    expect(rewardsProblem([top("x", 0), ranks("y", 0)])).toMatch(/exactly one of the two/);
    expect(rewardsProblem([top("x", 100.5)])).toBe("close.rewards[0].top_percent must be above 0 and at most 100, got 100.5");
    expect(rewardsProblem([ranks("x", 5, 3)])).toBe("close.rewards[0].to_rank must lie within from_rank (5) and 10000, got 3");
    expect(rewardsProblem([ranks("x", 1, 10_001)])).toMatch(/and 10000, got 10001/);
    expect(rewardsProblem(Array.from({ length: 33 }, () => ranks("x", 1)))).toBe("close.rewards: at most 32 ranges, got 33");
  });
});
