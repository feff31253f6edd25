import { describe, expect, it } from "vitest";
import { QuotaBuckets, SWEEP_MS } from "./quota-buckets.js";

const limit = { perSecond: 2, burst: 4 };

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("ingest > quota buckets", () => {
  it("starts full, refuses past the burst and names the wait until the count fits", () => {
    const c = clock();
    const b = new QuotaBuckets(c.now);
    expect(b.take([{ key: "p", limit, count: 3 }])).toEqual({ retryAfterMs: 0 });
    const refused = b.take([{ key: "p", limit, count: 2 }]);
    expect(refused).toMatchObject({ retryAfterMs: 500, ask: { key: "p" } }); // 1 token short at 2/s
    c.advance(499);
    expect(b.take([{ key: "p", limit, count: 2 }]).retryAfterMs).toBe(1);
    c.advance(1);
    expect(b.take([{ key: "p", limit, count: 2 }])).toEqual({ retryAfterMs: 0 });
  });

  it("takes all asks of a batch or none of them", () => {
    const c = clock();
    const b = new QuotaBuckets(c.now);
    b.take([{ key: "full", limit, count: 4 }]);
    const refused = b.take([
      { key: "other", limit, count: 1 },
      { key: "full", limit, count: 1 },
    ]);
    expect(refused).toMatchObject({ retryAfterMs: 500, ask: { key: "full" } });
    // "other" kept its 4 tokens: the refused batch took nothing from it
    expect(b.take([{ key: "other", limit, count: 4 }])).toEqual({ retryAfterMs: 0 });
  });

  it("answers the longest wait among the asks that are short", () => {
    const c = clock();
    const b = new QuotaBuckets(c.now);
    const slow = { perSecond: 1, burst: 2 };
    b.take([
      { key: "a", limit, count: 4 },
      { key: "b", limit: slow, count: 2 },
    ]);
    expect(
      b.take([
        { key: "a", limit, count: 1 },
        { key: "b", limit: slow, count: 2 },
      ]),
    ).toMatchObject({
      retryAfterMs: 2000,
      ask: { key: "b" },
    });
  });

  it("never refills above the burst, and cuts a bucket down to a lowered one", () => {
    const c = clock();
    const b = new QuotaBuckets(c.now);
    b.take([{ key: "p", limit, count: 1 }]);
    c.advance(60_000);
    expect(b.take([{ key: "p", limit, count: 5 }]).retryAfterMs).toBe(500);
    expect(b.take([{ key: "p", limit: { perSecond: 1, burst: 1 }, count: 1 }])).toEqual({ retryAfterMs: 0 });
    expect(b.take([{ key: "p", limit: { perSecond: 1, burst: 1 }, count: 1 }]).retryAfterMs).toBe(1000);
  });

  it("forgets buckets that filled up again, keeps those still refilling", () => {
    const c = clock();
    const b = new QuotaBuckets(c.now);
    b.take([{ key: "quick", limit, count: 1 }]);
    b.take([{ key: "slow", limit: { perSecond: 1, burst: 100 }, count: 100 }]);
    expect(b.size).toBe(2);
    c.advance(SWEEP_MS);
    b.take([{ key: "new", limit, count: 1 }]);
    expect(b.size).toBe(2); // "quick" is full again and forgotten; "slow" has 10 of 100
    expect(b.take([{ key: "slow", limit: { perSecond: 1, burst: 100 }, count: 11 }]).retryAfterMs).toBe(1000);
  });
});
