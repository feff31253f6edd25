import { describe, expect, it } from "vitest";
import { benchPlan, boardsPeakEntries } from "./plan.js";

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

  it("keeps the boards benchmark below 12 GB of Redis at ~125 bytes per entry, at 1M and 10M players (the windowed board's whole state at 1M)", () => {
    const p = benchPlan(false).boards;
    expect(p.sizes).toEqual([1_000_000, 10_000_000]);
    expect(p.fullStateMaxPlayers).toBe(1_000_000);
    expect(boardsPeakEntries(p) * 125).toBeLessThan(12e9);
    const quick = benchPlan(true).boards;
    quick.sizes.forEach((n, i) => expect(n).toBeLessThan(p.sizes[i]!));
    expect(quick.reads.durationMs).toBeLessThan(p.reads.durationMs);
  });

  it("reads batches on a 1M-player board and pages at depths the quick plan can reach too", () => {
    const full = benchPlan(false).batch;
    const quick = benchPlan(true).batch;
    expect(full).toMatchObject({ players: 1_000_000, asked: 100, pageLimits: [10, 50, 100], walkLimit: 1000 });
    for (const p of [full, quick]) {
      expect(p.players).toBeGreaterThanOrEqual(10_000 + p.walkLimit); // the deepest offset page and its walk page
      expect(p.dailyPlayers).toBeLessThanOrEqual(p.players);
      expect(Math.max(...p.pageLimits)).toBeLessThanOrEqual(p.walkLimit);
    }
    expect(quick.players).toBeLessThan(full.players);
    expect(quick.seconds).toBeLessThan(full.seconds);
  });

  it("compares exact and approximate ranks on 1M players with histograms of 16 and 255 bounds, the quick plan smaller", () => {
    const full = benchPlan(false).approx;
    const quick = benchPlan(true).approx;
    expect(full).toMatchObject({ players: 1_000_000, boundCounts: [16, 255], checkedPlayers: 300, rounds: 3 });
    expect(quick).toMatchObject({ players: 20_000, boundCounts: [16, 255], rounds: 1 });
    for (const p of [full, quick]) {
      expect(Math.max(...p.boundCounts)).toBeLessThanOrEqual(255); // MAX_HISTOGRAM_BOUNDS
      expect(p.checkedPlayers).toBeLessThanOrEqual(p.players);
    }
    expect(quick.nodeCalls).toBeLessThan(full.nodeCalls);
    expect(quick.seconds).toBeLessThan(full.seconds);
  });

  it("holds 10,000 watchers over 100 streams per connection on 1M players, the quick plan 1,000 on 20k, at the API's default interval", () => {
    const full = benchPlan(false).push;
    const quick = benchPlan(true).push;
    expect(full).toMatchObject({ players: 1_000_000, watchers: 10_000, intervalMs: 250 });
    expect(quick).toMatchObject({ players: 20_000, watchers: 1_000, intervalMs: 250 });
    for (const p of [full, quick]) {
      expect(p.watchers / p.connections).toBeLessThanOrEqual(100); // HTTP/2's usual limit of concurrent streams per connection
      expect(p.watchers).toBeLessThanOrEqual(p.players / 10); // the background writes find unwatched players
      expect([...p.rates].sort((a, b) => a - b)).toEqual(p.rates);
      expect(p.mix.ownShare + p.mix.overtakeShare).toBeLessThan(0.5);
    }
    expect(quick.windowS).toBeLessThan(full.windowS);
  });
});
