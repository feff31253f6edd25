import { describe, expect, it } from "vitest";
import { aloneSummary, readCall } from "./window-reads.js";
import type { ShardReader } from "@ladder/store";

describe("bench > boards > window reads", () => {
  it("summarizes calls made one after another: mean, median, nearest-rank 99th percentile, max", () => {
    const latencies = Array.from({ length: 200 }, (_, i) => 200 - i); // 1 .. 200 ms, in any order
    expect(aloneSummary(latencies)).toEqual({ mean: 100.5, p50: 100, p99: 198, max: 200 });
    expect(aloneSummary([0.5])).toEqual({ mean: 0.5, p50: 0.5, p99: 0.5, max: 0.5 });
  });

  it("asks top of the limit, rank as a standing of radius 0 and around of the radius, and fails a player without an entry", async () => {
    const asked: unknown[] = [];
    const reader = {
      top: async (board: string, n: number) => (asked.push(["top", board, n]), { card: 1, members: [] }),
      standing: async (board: string, id: string, radius: number) => (
        asked.push(["standing", board, id, radius]), id === "gone" ? undefined : { key: 1, ahead: 0, card: 1, start: 0, members: [] }
      ),
    } as unknown as ShardReader;
    const shape = { topLimit: 10, aroundRadius: 5 };
    await readCall(reader, "b@d", "top", shape, () => "p")();
    await readCall(reader, "b@d", "rank", shape, () => "p")();
    await readCall(reader, "b@d", "around", shape, () => "p")();
    expect(asked).toEqual([
      ["top", "b@d", 10],
      ["standing", "b@d", "p", 0],
      ["standing", "b@d", "p", 5],
    ]);
    await expect(readCall(reader, "b@d", "rank", shape, () => "gone")()).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
