import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.js";

describe("gateway > rate limits", () => {
  it("lets a client take its burst at once, then one token per 1/rate seconds, saying how long to wait", () => {
    let now = 0;
    const limiter = new RateLimiter({ rate: 2, burst: 3, streams: 1 }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take("a"))).toEqual([0, 0, 0, 1]);
    expect(limiter.take("b")).toBe(0); // buckets are per client
    now += 499;
    expect(limiter.take("a")).toBe(1); // 0.998 tokens: not yet
    now += 1;
    expect(limiter.take("a")).toBe(0);
    now += 60_000;
    expect([1, 2, 3, 4].map(() => limiter.take("a"))).toEqual([0, 0, 0, 1]); // refilled to the burst, no more
  });

  it("says the whole seconds until a token is back at a slow rate", () => {
    let now = 0;
    const limiter = new RateLimiter({ rate: 0.1, burst: 1, streams: 1 }, () => now);
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(10);
    now += 2500;
    expect(limiter.take("a")).toBe(8); // 0.25 of a token: 7.5 s more, rounded up
  });

  it("caps a client's open streams; a release frees one slot, once", () => {
    const limiter = new RateLimiter({ rate: 1, burst: 1, streams: 2 });
    const first = limiter.openStream("a");
    const second = limiter.openStream("a");
    expect(first && second).toBeTruthy();
    expect(limiter.openStream("a")).toBeUndefined();
    expect(limiter.openStream("b")).toBeDefined();
    first!();
    first!();
    expect(limiter.openStream("a")).toBeDefined();
    expect(limiter.openStream("a")).toBeUndefined();
  });

  it("forgets clients whose bucket filled up again and who hold no stream", () => {
    let now = 0;
    const limiter = new RateLimiter({ rate: 1, burst: 2, streams: 1 }, () => now);
    limiter.take("idle");
    limiter.take("streaming");
    const release = limiter.openStream("streaming");
    limiter.take("busy");
    limiter.take("busy");
    now += 1500; // idle: full again; busy: 1.5 of 2
    limiter.sweep();
    expect(limiter.size).toBe(2);
    release!();
    now += 1000;
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });
});
