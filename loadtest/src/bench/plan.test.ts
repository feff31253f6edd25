import { describe, expect, it } from "vitest";
import { benchPlan } from "./plan.js";

describe("bench > plan", () => {
  it("measures 1M and 10M players over 1, 2 and 4 shards, 32 reads in flight for 10 s", () => {
    const p = benchPlan(false);
    expect(p.sizes).toEqual([1_000_000, 10_000_000]);
    expect(p.shardCounts).toEqual([1, 2, 4]);
    expect(p.reads).toMatchObject({ concurrency: 32, durationMs: 10_000, topLimit: 10, aroundRadius: 5 });
    expect(p.rebuild.records).toBe(1_000_000);
  });

  it("keeps the quick plan smaller in every size and duration", () => {
    const full = benchPlan(false);
    const quick = benchPlan(true);
    quick.sizes.forEach((n, i) => expect(n).toBeLessThan(full.sizes[i]!));
    expect(quick.reads.durationMs).toBeLessThan(full.reads.durationMs);
    expect(quick.ingest.durationMs).toBeLessThan(full.ingest.durationMs);
    expect(quick.rebuild.records).toBeLessThan(full.rebuild.records);
  });

  it("asks PostgreSQL at the router's concurrency, with shared_buffers for the largest table and a window of several rank calls per connection", () => {
    for (const p of [benchPlan(false), benchPlan(true)]) {
      expect(p.postgres.top.concurrency).toBe(p.reads.concurrency);
      expect(p.postgres.rank.concurrency).toBe(p.reads.concurrency);
      expect(p.postgres.sharedBuffersMb * 2 ** 20).toBeGreaterThan(Math.max(...p.sizes) * 106 * 1.25); // 106 bytes per row: table + indexes
    }
    const full = benchPlan(false);
    expect(full.postgres.rank.minCalls).toBeGreaterThanOrEqual(5 * full.postgres.rank.concurrency);
    expect(full.rebuild.eventIds).toEqual([false, true]);
  });
});
