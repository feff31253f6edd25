import { describe, expect, it } from "vitest";
import { snapshotDue, snapshotThreshold } from "./snapshots.js";

describe("shard node > snapshot threshold", () => {
  it("raises LADDER_SNAPSHOT_RECORDS by at most half, by a fraction fixed per shard id and different across shards", () => {
    const ids = Array.from({ length: 8 }, (_, i) => `shard-${i}`);
    const thresholds = ids.map((id) => snapshotThreshold(1_000_000, id));
    for (const t of thresholds) {
      expect(t).toBeGreaterThanOrEqual(1_000_000);
      expect(t).toBeLessThan(1_500_000);
    }
    expect(new Set(thresholds.slice(0, 3)).size).toBe(3); // the local cluster's three shards never coincide
    expect(Math.max(...thresholds) - Math.min(...thresholds)).toBeGreaterThan(100_000); // spread, not clustered
    expect(ids.map((id) => snapshotThreshold(1_000_000, id))).toEqual(thresholds); // the same on every start
    expect(snapshotThreshold(1, "shard-0")).toBeGreaterThanOrEqual(1);
  });

  it("waits for as many records as the latest snapshot has members when it has more than LADDER_SNAPSHOT_RECORDS", () => {
    const base = snapshotThreshold(1_000_000, "shard-1");
    expect(snapshotThreshold(1_000_000, "shard-1", 0)).toBe(base);
    expect(snapshotThreshold(1_000_000, "shard-1", 999_999)).toBe(base); // fewer members: the fixed count
    const big = snapshotThreshold(1_000_000, "shard-1", 25_000_000);
    expect(Math.abs(big - base * 25)).toBeLessThanOrEqual(25); // the same shard's stagger, on the members
    expect(big).toBeGreaterThanOrEqual(25_000_000);
    expect(big).toBeLessThan(37_500_000);
  });

  it("is due only while the shard serves, within LADDER_MAX_LAG of the log's end, past its threshold", () => {
    const due = { serving: true, lag: 0, maxLag: 100_000, sinceLatest: 1_200_000, threshold: 1_100_000 };
    expect(snapshotDue(due)).toBe(true);
    expect(snapshotDue({ ...due, lag: 100_000 })).toBe(true); // at the bound
    expect(snapshotDue({ ...due, lag: 100_001 })).toBe(false); // catching up on a backlog, though serving
    expect(snapshotDue({ ...due, lag: Number.POSITIVE_INFINITY })).toBe(false); // no end offsets read yet
    expect(snapshotDue({ ...due, serving: false })).toBe(false);
    expect(snapshotDue({ ...due, sinceLatest: 1_099_999 })).toBe(false);
  });
});
