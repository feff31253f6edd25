import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import type { ClusterClients } from "./cluster-clients.js";
import { runLoadtest } from "./loadtest.js";
import { parseLoadtestOptions } from "./options.js";

const config = loadConfig({ LADDER_CREDENTIALS_FILE: "/nonexistent/credentials.json" });

/** A cluster whose GetRank answers after `latencyMs(n)` ms for the n-th call (0-based), on the fake clock. */
function fakeCluster(latencyMs: (n: number) => number) {
  const sentAt: number[] = [];
  const answer = () => {
    const n = sentAt.push(performance.now()) - 1;
    return new Promise((resolve) => setTimeout(() => resolve({ rank: 1n }), latencyMs(n)));
  };
  const clients = {
    router: () => ({ getRank: answer, getTop: answer, getAround: answer }),
    ingest: () => ({ submitScores: answer }),
    close: () => {},
  } as unknown as ClusterClients;
  return { clients, sentAt };
}

async function run(args: string[], latencyMs: (n: number) => number) {
  const options = parseLoadtestOptions(["--mix", "rank=1", "--lag-every", "0", ...args], config);
  const cluster = fakeCluster(latencyMs);
  const done = runLoadtest({
    options,
    spec: config.boards.forBoard(options.board),
    clients: cluster.clients,
    print: () => {},
    signal: new AbortController().signal,
    clock: () => performance.now(),
  });
  await vi.advanceTimersByTimeAsync(10_000);
  return { result: await done, sentAt: cluster.sentAt };
}

describe("loadtest > run", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance", "Date"] }));
  afterEach(() => vi.useRealTimers());

  it("closed loop: a call sent during the warm-up and answered after it is not in the figures", async () => {
    // 1 in flight; 1 s warm-up, 1 s measured. The first call, sent at 0, is answered at 1.5 s: in
    // the window, but sent before it. Then calls of 100 ms: sent at 1.5, 1.6, ... 1.9 s.
    const { result, sentAt } = await run(["--concurrency", "1", "--warmup", "1s", "--duration", "1s"], (n) => (n === 0 ? 1500 : 100));
    const t0 = sentAt[0]!;
    expect(sentAt.map((t) => t - t0)).toEqual([0, 1500, 1600, 1700, 1800, 1900]);
    const rank = result.operations.rank!;
    expect(rank.calls).toBe(5);
    expect(rank.latencyMs.max).toBeCloseTo(100, 0); // not 1,500: the warm-up call's latency is not in the figures
    expect(result.elapsedMs).toBe(1000); // the window: rates are per second of it
    expect(rank.callsPerSec).toBe(5);
    expect(result.totals.calls).toBe(5);
  });

  it("open loop: calls count by their intended time, however late they are answered", async () => {
    // 10 requests/s for 1 s of warm-up and 1 s measured: intended at 0, 100, ... 1900 ms. The warm-up's
    // last one (900 ms) takes 2 s; the window's first (1000 ms) takes 2 s too, answered after the window.
    const { result } = await run(["--rate", "10", "--warmup", "1s", "--duration", "1s"], (n) => (n === 9 || n === 10 ? 2000 : 10));
    const rank = result.operations.rank!;
    expect(rank.calls).toBe(10); // intended at 1000 .. 1900 ms
    expect(rank.latencyMs.max).toBeCloseTo(2000, -1); // the window's slow call is in, answered at 3 s
    expect(rank.callsPerSec).toBe(10);
    expect(result.pacing).toMatchObject({ kind: "open", sent: 20, unsent: 0 });
  });
});
