import { describe, expect, it } from "vitest";
import type { PushRun, RestFigures } from "./push-run.js";
import type { StepFigures } from "./push-step.js";
import { benchPlan } from "../plan.js";
import { costTable, latencyTable, pushTables, stepsTable, usPerUpdate } from "./push-tables.js";

const cores = (router: number, shardNodes: number, redis: number) => ({
  router,
  shardNodes,
  redis,
  ingest: 0.1,
  kafka: 0.3,
  client: 0.2,
  machine: 1.5,
  others: 0.01,
});
const pct = (p50: number, n = 100) => ({ n, p50, p90: 2 * p50, p99: 3 * p50, max: 4 * p50 });
const rest = (label: string, watchers: number, tops: number, shardNodes: number, redis: number): RestFigures => ({
  label,
  watchers,
  tops,
  routerLiveHeapMiB: 40,
  cores: cores(0.01, shardNodes, redis),
});
const step = (watchers: number, rate: number, over: Partial<StepFigures> = {}): StepFigures => ({
  watchers,
  tops: watchers ? 5 : 0,
  rate,
  windowS: 10,
  sent: rate / 2,
  unsent: 0,
  ackedPerS: rate,
  appliedPerS: rate,
  failed: { batches: 0, byCode: {} },
  ackMs: pct(10),
  drainS: 0.1,
  changesPerS: watchers ? rate : 0,
  playerMessagesPerS: watchers ? 3000 : 0,
  topMessagesPerS: 0,
  eventsPerS: watchers ? { overtaken: 5000, passed: 2000, score_changed: 50 } : {},
  cores: cores(0.5, 0.3, 0.05),
  probes: { own: 50, overtake: 10, overtakeSkipped: 0, expired: 0, failed: 0 },
  feedResets: 0,
  resynced: 0,
  streamsEnded: 0,
  settleS: 1,
  shortfalls: [],
  ...(watchers ? { own: pct(150), overtake: pct(120, 20) } : {}),
  ...over,
});

describe("bench > output > push tables", () => {
  it("works out CPU per update from cores and a rate", () => {
    expect(usPerUpdate(0.25, 1000)).toBe(250);
    expect(usPerUpdate(0.25, 0)).toBeNaN();
  });

  it("lists the steps without watchers, with them, then with the tops alone, and says why a step was not sustained", () => {
    const t = stepsTable(
      {
        without: [step(0, 250)],
        with: [step(1000, 250, { liveHeapAfterMiB: 52.25 }), step(1000, 1000, { drainS: Infinity, shortfalls: ["3 change feed resets"] })],
        topsOnly: [step(0, 250, { tops: 5, topMessagesPerS: 8 })],
      },
      { windowS: 10, intervalMs: 250 },
    );
    // router CPU per message: 0.5 cores ÷ 3,000 messages/s = 167 µs
    expect(t.rows.map((r) => [r[0], r[1], r[4], r[6], r[7], r[8], r[11], r[12]])).toEqual([
      ["none", "250", "0.1", "—", "—", "—", "—", "yes"],
      ["1,000 + 5 tops", "250", "0.1", "3,000", "7,000", "167", "52.3", "yes"],
      ["1,000 + 5 tops", "1,000", "never", "3,000", "7,000", "167", "—", "no: 3 change feed resets"],
      ["5 WatchTop only", "250", "0.1", "8", "—", "—", "—", "yes"],
    ]);
  });

  it("gives two latency rows per step with watchers", () => {
    const t = latencyTable([step(1000, 250)]);
    expect(t.rows).toEqual([
      ["250", "own score (the watched player's)", "100", "150", "300", "450", "600"],
      ["250", "overtake (another player passes it)", "20", "120", "240", "360", "480"],
    ]);
  });

  it("compares each rate's applies without watchers and with the change streams on, net of what the processes spend at rest", () => {
    const run = {
      without: [step(0, 1000, { cores: cores(0.01, 0.3, 0.05) }), step(0, 2000)],
      topsOnly: [step(0, 1000, { tops: 5, changesPerS: 1000, cores: cores(0.1, 0.35, 0.09) })],
    };
    // without: (0.3 - 0.1) / 1000 = 200 µs, Redis (0.05 - 0.01) / 1000 = 40 µs; with: (0.35 - 0.05) / 1000 = 300 µs, Redis 80 µs, router (0.1 - 0.01) / 1000 = 90 µs
    const t = costTable(run, rest("none", 0, 0, 0.1, 0.01), rest("tops", 0, 5, 0.05, 0.01));
    expect(t.rows).toEqual([["1,000", "1,000 / 1,000", "0 / 1,000", "200 / 300", "1.5x", "40 / 80", "2x", "90"]]);
  });

  it("makes the five tables", () => {
    const run = {
      seeded: "",
      rest: [rest("a", 0, 0, 0.1, 0.01), rest("b", 1000, 5, 0.1, 0.01), rest("c", 0, 5, 0.1, 0.01)],
      without: [step(0, 250)],
      with: [step(1000, 250)],
      topsOnly: [step(0, 250, { tops: 5 })],
      sustained: { without: 250, with: 250, topsOnly: 250 },
      hold: { watchers: 1000, tops: 5, connections: 10, seconds: 1.2, firstMs: pct(900, 1005) },
      resetLines: [],
      flagsGoneS: 25,
    } satisfies PushRun;
    const tables = pushTables(run, benchPlan(true).push);
    expect(tables.map((t) => t.rows.length)).toEqual([1, 3, 3, 2, 1]);
    expect(tables[0]!.rows[0]!.slice(0, 3)).toEqual(["1,000 WatchPlayer + 5 WatchTop", "10 + 1", "1.2 s"]);
  });
});
