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

  it("replays with and without event ids, and asks the router on 1M players in 3 rounds of h2load, the quick plan smaller", () => {
    const full = benchPlan(false);
    const quick = benchPlan(true);
    expect(full.rebuild.eventIds).toEqual([false, true]);
    expect(full.grpc).toMatchObject({ players: 1_000_000, rounds: 3, connections: 4, streams: 16 });
    expect(quick.grpc.players).toBeLessThan(full.grpc.players);
    expect(quick.grpc.seconds).toBeLessThan(full.grpc.seconds);
  });
});
