// The store's benchmarks run, small, on every suite run: a bench that stops running (its boards'
// rules behind what normalizeDefinition reads, a changed writer API) fails here instead of on the
// day its figures are wanted. Each starts its own redis-server (bench-redis.ts), never the machine's.
// What is checked is that they run and report what they measured, not the figures themselves.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const bench = (file: string, args: string[]) =>
  run(process.execPath, ["--import", "tsx", join(import.meta.dirname, file), ...args], { timeout: 120_000 });

describe("store benchmarks", () => {
  it("apply-bench applies every record, reports its CPU per record, and the same records give the same data", async () => {
    const args = ["--records", "3000", "--prepare-passes", "2", "--digest", "--now", "1796600000000"];
    const runs = await Promise.all([bench("apply-bench.ts", args), bench("apply-bench.ts", args)]);
    const digests = runs.map(({ stdout }) => {
      const [json, digest] = stdout.trim().split("\n");
      const line = JSON.parse(json!) as Record<string, number>;
      expect(line.records).toBe(3000);
      for (const k of ["redisCpuUsPerRecord", "nodeCpuUsPerRecord", "prepareCpuUsPerRecord", "prepareFirstCpuUsPerRecord"])
        expect(line[k], k).toBeGreaterThan(0);
      expect(digest).toMatch(/^digest [0-9a-f]{40}$/);
      return digest;
    });
    expect(digests[0]).toBe(digests[1]);
  });

  it("snapshot-memory takes a snapshot of every player and reports the memory it took", async () => {
    const { stdout } = await bench("snapshot-memory.ts", ["--players", "20000", "--takes", "1"]);
    const line = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, number>;
    // keys: the board, and the 1,024 hashes of counts of records of its one slot (model/src/record-counts.ts)
    expect(line).toMatchObject({ players: 20000, take: 1, keys: 1025, snapshotPlayers: 20000 });
    expect(line.sentMB).toBeGreaterThan(0.5); // 20,000 members and 20,000 counts, about 30 bytes each
    for (const k of ["rssRiseMB", "heapRiseMB", "buffersRiseMB"]) expect(Number.isFinite(line[k]), k).toBe(true);
  });

  it("zset-floor measures each command of a plain record", async () => {
    const { stdout } = await bench("zset-floor.ts", ["--players", "5000", "--calls", "4", "--rounds", "1"]);
    const line = JSON.parse(stdout.trim().split("\n").at(-1)!) as { players: number; rows: Array<{ shape: string; usPerRecord: number }> };
    expect(line.players).toBe(5000);
    expect(line.rows.map((r) => r.shape)).toContain("ZADD on the board (a new random key)");
    // CPU read from /proc in 10 ms ticks: a small run may see none of some shapes, never a negative or missing figure
    for (const r of line.rows) expect(Number.isFinite(r.usPerRecord) && r.usPerRecord >= 0, r.shape).toBe(true);
  });

  it("huge-pages measures a board write with 4 KiB and with huge pages, and each server's fork", async () => {
    const { stdout } = await bench("huge-pages.ts", ["--players", "20000", "--calls", "4", "--rounds", "1"]);
    const line = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      players: number;
      rows: Array<{
        server: string;
        usPerRecord: Record<string, number>;
        memory: { rssMb: number; usedMb: number };
        fork: { forkMs: number };
      }>;
    };
    expect(line.players).toBe(20000);
    expect(line.rows.map((r) => r.server)).toEqual(["4 KiB pages", "huge pages"]);
    for (const r of line.rows) {
      for (const [shape, us] of Object.entries(r.usPerRecord)) expect(Number.isFinite(us) && us >= 0, shape).toBe(true);
      expect(r.memory.usedMb).toBeGreaterThan(0);
      expect(r.fork.forkMs).toBeGreaterThan(0);
    }
  });
});
