import { describe, expect, it } from "vitest";
import { benchPlan } from "./plan.js";

describe("bench > plan", () => {
  it("writes 8 batches of 1,000 in flight for 15 s through 3 shards, and replays 1M records with and without event ids", () => {
    const p = benchPlan(false);
    expect(p.ingest).toMatchObject({ concurrency: 8, durationMs: 15_000, batch: 1000, shards: 3 });
    expect(p.rebuild).toEqual({ records: 1_000_000, shards: [1, 3], eventIds: [false, true] });
  });

  it("asks the router on 1M players in 3 rounds of h2load", () => {
    expect(benchPlan(false).grpc).toMatchObject({ players: 1_000_000, rounds: 3, connections: 4, streams: 16 });
  });

  it("keeps the quick plan smaller in every size and duration", () => {
    const full = benchPlan(false);
    const quick = benchPlan(true);
    expect(quick.ingest.durationMs).toBeLessThan(full.ingest.durationMs);
    expect(quick.ingest.players).toBeLessThan(full.ingest.players);
    expect(quick.rebuild.records).toBeLessThan(full.rebuild.records);
    expect(quick.grpc.players).toBeLessThan(full.grpc.players);
    expect(quick.grpc.seconds).toBeLessThan(full.grpc.seconds);
  });
});
