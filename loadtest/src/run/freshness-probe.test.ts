import { describe, expect, it } from "vitest";
import { FreshnessProbe, type ProbeDeps } from "./freshness-probe.js";

const options = { everyMs: 100, pollMs: 10, timeoutMs: 1000, maxProbes: 2 };

/** A fake cluster: reads see `visible` scores; time advances only through sleep. */
function fake() {
  let now = 0;
  const visible = new Map<string, number>();
  const lags: number[] = [];
  const sentTimes: number[] = [];
  const showAt = new Map<string, { at: number; value: number }>();
  const deps: ProbeDeps = {
    read: async (id) => {
      const s = showAt.get(id);
      if (s && now >= s.at) visible.set(id, s.value);
      return visible.get(id);
    },
    onLag: (ms, writeSentMs) => {
      lags.push(ms);
      sentTimes.push(writeSentMs);
    },
    clock: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  return { deps, lags, sentTimes, visible, showAt, advance: (ms: number) => (now += ms), at: () => now };
}

describe("loadtest > freshness probe", () => {
  it("measures the time from the acknowledgement until a read shows the value", async () => {
    const f = fake();
    const probe = new FreshnessProbe(options, f.deps);
    expect(probe.claim("p:1")).toBe(true);
    f.showAt.set("p:1", { at: 45, value: 700 });
    probe.start("p:1", 700, 0, 0);
    await probe.drain();
    expect(f.lags).toEqual([50]); // polled at 0, 10, ... 50: seen at the first poll after 45
    expect(probe.stats).toMatchObject({ started: 1, seen: 1, polls: 6 });
  });

  it("claims at most one probe per interval and at most maxProbes at once, never twice for a player", () => {
    const f = fake();
    const probe = new FreshnessProbe(options, f.deps);
    expect(probe.claim("p:1")).toBe(true);
    expect(probe.claim("p:2")).toBe(false); // too soon
    f.advance(100);
    expect(probe.claim("p:1")).toBe(false); // already probed
    expect(probe.claim("p:2")).toBe(true);
    f.advance(100);
    expect(probe.claim("p:3")).toBe(false); // two at once already
  });

  it("does nothing when disabled", () => {
    const probe = new FreshnessProbe({ ...options, everyMs: 0 }, fake().deps);
    expect(probe.claim("p:1")).toBe(false);
  });

  it("accepts a later SET or BEST of the same player as a sight", async () => {
    const f = fake();
    const probe = new FreshnessProbe(options, f.deps);
    probe.claim("p:1");
    probe.noteWrite("p:1", "best", 900);
    f.showAt.set("p:1", { at: 20, value: 900 }); // the later write won before the first sight
    probe.start("p:1", 700, 0, 0);
    await probe.drain();
    expect(f.lags).toEqual([20]);
  });

  it("drops a probe superseded by a later INCREMENT", async () => {
    const f = fake();
    const probe = new FreshnessProbe(options, f.deps);
    probe.claim("p:1");
    probe.start("p:1", 700, 0, 0);
    probe.noteWrite("p:1", "inc", 5);
    await probe.drain();
    expect(probe.stats).toMatchObject({ superseded: 1, seen: 0 });
    expect(f.lags).toEqual([]);
  });

  it("times out without recording a lag, and counts failed reads", async () => {
    const f = fake();
    let calls = 0;
    const probe = new FreshnessProbe(options, {
      ...f.deps,
      read: async () => (++calls % 2 ? undefined : Promise.reject(new Error("down"))),
    });
    probe.claim("p:1");
    probe.start("p:1", 700, 0, 0);
    await probe.drain();
    expect(probe.stats.timedOut).toBe(1);
    expect(probe.stats.pollErrors).toBeGreaterThan(0);
    expect(f.lags).toEqual([]);
    expect(probe.claim("p:1")).toBe(true); // the player is free again
  });

  it("releases a probe whose write failed", () => {
    const f = fake();
    const probe = new FreshnessProbe({ ...options, everyMs: 1 }, f.deps);
    probe.claim("p:1");
    probe.abandon("p:1", 0);
    expect(probe.stats.writeFailed).toBe(1);
    f.advance(1);
    expect(probe.claim("p:1")).toBe(true);
  });

  it("keeps a probe whose write was sent before the measured window out of the stats, and passes its lag on with the write's send time", async () => {
    const f = fake();
    const probe = new FreshnessProbe({ ...options, everyMs: 1 }, { ...f.deps, counts: (sentMs) => sentMs >= 100 });
    probe.claim("p:1");
    f.showAt.set("p:1", { at: 0, value: 1 });
    probe.start("p:1", 1, 120, 90); // sent in the warm-up, acknowledged in the window
    await probe.drain();
    f.advance(1);
    probe.claim("p:2");
    probe.abandon("p:2", 50);
    expect(probe.stats).toMatchObject({ started: 0, seen: 0, writeFailed: 0, polls: 0 });
    expect(f.sentTimes).toEqual([90]); // for the time series, which the caller keeps apart
    f.advance(1);
    probe.claim("p:3");
    f.showAt.set("p:3", { at: 0, value: 3 });
    probe.start("p:3", 3, 130, 100);
    await probe.drain();
    expect(probe.stats).toMatchObject({ started: 1, seen: 1, writeFailed: 0, polls: 1 });
  });
});
