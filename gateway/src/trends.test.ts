import { describe, expect, it } from "vitest";
import { BOARDS, GAP_MS, KEEP, STEP_MS, Trends } from "./trends.js";

/** A clock the test moves, and a log whose end and lags the test sets. */
function setup() {
  const clock = { t: 1_000_000 };
  const log = { end: 0 as number | null, lag: { "shard-0": 0 as number | null }, calls: 0 };
  const trends = new Trends(() => clock.t);
  const status = async () => {
    log.calls++;
    return { logEnd: log.end, lag: { ...log.lag } };
  };
  return { clock, log, trends, status };
}

describe("gateway > trends", () => {
  it("gives the write rate as the log end's change per second between samples", async () => {
    const { clock, log, trends, status } = setup();
    log.end = 100;
    const first = await trends.read(status);
    expect(first.cluster).toEqual([{ atMs: clock.t, logEnd: 100, writesPerSecond: null, lag: { "shard-0": 0 } }]);
    clock.t += STEP_MS;
    log.end = 100 + 500; // 500 records in 2 s
    const second = await trends.read(status);
    expect(second.cluster.map((s) => s.writesPerSecond)).toEqual([null, 250]);
  });

  it("samples at most once a step, however many dashboards ask", async () => {
    const { clock, log, trends, status } = setup();
    await Promise.all([trends.read(status), trends.read(status), trends.read(status)]);
    clock.t += STEP_MS - 1;
    await trends.read(status);
    expect(log.calls).toBe(1);
    clock.t += 1;
    const r = await trends.read(status);
    expect(log.calls).toBe(2);
    expect(r.cluster).toHaveLength(2);
  });

  it("gives no rate across a gap nobody looked at, nor for an unknown log end", async () => {
    const { clock, log, trends, status } = setup();
    await trends.read(status);
    clock.t += GAP_MS + 1;
    log.end = 10_000;
    expect((await trends.read(status)).cluster.at(-1)!.writesPerSecond).toBeNull();
    clock.t += STEP_MS;
    log.end = null; // Kafka did not answer
    expect((await trends.read(status)).cluster.at(-1)!.writesPerSecond).toBeNull();
    clock.t += STEP_MS;
    log.end = 10_100;
    expect((await trends.read(status)).cluster.at(-1)!.writesPerSecond).toBeNull(); // the one before has no end
  });

  it("keeps at most KEEP samples, the newest", async () => {
    const { clock, log, trends, status } = setup();
    for (let i = 0; i < KEEP + 5; i++) {
      log.end = i;
      await trends.read(status);
      clock.t += STEP_MS;
    }
    const r = await trends.read(status);
    expect(r.cluster).toHaveLength(KEEP);
    expect(r.cluster.at(-1)!.logEnd).toBe(KEEP + 4);
  });

  it("follows a board's size, and forgets the least recently asked board past BOARDS", async () => {
    const { clock, trends, status } = setup();
    const sizes = new Map<string, number>();
    const ask = (name: string) => trends.read(status, { name, period: "", window: "", size: async () => sizes.get(name) ?? 0 });
    sizes.set("arena", 7);
    expect((await ask("arena")).board).toEqual({ name: "arena", period: "", window: "", samples: [{ atMs: clock.t, total: 7 }] });
    for (let i = 0; i < BOARDS; i++) await ask(`b${i}`); // arena is now the least recent of BOARDS + 1
    clock.t += STEP_MS;
    sizes.set("arena", 9);
    expect((await ask("arena")).board!.samples).toEqual([{ atMs: clock.t, total: 9 }]); // a new series
    expect((await ask("b15")).board!.samples).toHaveLength(2); // kept: an old sample and a new one
  });

  it("adds no sample when a read fails, and fails the answer", async () => {
    const { clock, trends, status } = setup();
    await trends.read(status);
    clock.t += STEP_MS;
    await expect(trends.read(async () => Promise.reject(new Error("router down")))).rejects.toThrow("router down");
    expect((await trends.read(status)).cluster).toHaveLength(2); // the next ask samples again
  });
});
