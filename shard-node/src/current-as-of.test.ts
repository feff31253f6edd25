import { describe, expect, it } from "vitest";
import { CurrentAsOf } from "./current-as-of.js";

const ends = (...pairs: Array<[number, bigint]>) => new Map(pairs);

describe("shard node > current as of", () => {
  it("is current as of the newest answer of end offsets that every partition has applied up to", () => {
    const c = new CurrentAsOf();
    c.clock(1_000_000, 1000); // the Redis's clock reads 999,000 ms more than the node's
    c.seen(100, ends([0, 5n], [1, 3n]));
    c.seen(200, ends([0, 8n], [1, 3n]));
    c.update([0, 1], (p) => (p === 0 ? 4n : 2n)); // offsets 0..4 and 0..2 applied: the first answer reached
    expect(c.redisAsOf()).toBe(999_100);
    c.update([0, 1], (p) => (p === 0 ? 6n : 2n)); // not yet the second
    expect(c.redisAsOf()).toBe(999_100);
    c.update([0, 1], (p) => (p === 0 ? 7n : 2n));
    expect(c.redisAsOf()).toBe(999_200);
  });

  it("counts a partition without records (end offset 0) as reached, and only the node's own partitions", () => {
    const c = new CurrentAsOf();
    c.clock(5000, 5000);
    c.seen(10, ends([0, 0n], [1, 9n], [2, 4n]));
    c.update([0, 2], (p) => (p === 2 ? 3n : -1n));
    expect(c.redisAsOf()).toBe(10);
  });

  it("knows nothing before an answer is reached or the Redis's clock was read, nor after a reset", () => {
    const c = new CurrentAsOf();
    c.seen(10, ends([0, 2n]));
    c.update([0], () => 1n);
    expect(c.redisAsOf()).toBeUndefined(); // no clock reading yet
    c.clock(100, 100);
    expect(c.redisAsOf()).toBe(10);
    c.seen(8, ends([0, 2n])); // older than what was reached: no news
    c.reset(); // the shard lost what it applied: rewound to offset 0
    expect(c.redisAsOf()).toBeUndefined();
    c.seen(20, ends([0, 3n]));
    c.update([0], () => 0n);
    expect(c.redisAsOf()).toBeUndefined(); // not applied up to it
    c.update([0], () => 1n);
    expect(c.redisAsOf()).toBeUndefined(); // not applied up to it
    c.update([0], () => 2n);
    expect(c.redisAsOf()).toBe(20);
  });

  it("is current as of an answer the heartbeat found the shard's Redis holding, whatever the applier knows", () => {
    const c = new CurrentAsOf();
    c.clock(0, 0);
    c.seen(10, ends([0, 5n]));
    c.seen(20, ends([0, 9n]));
    c.reached(10); // a snapshot loaded the offsets: the applier knows nothing yet
    expect(c.redisAsOf()).toBe(10);
    c.update([0], () => 2n); // what the applier knows does not take it back
    expect(c.redisAsOf()).toBe(10);
    c.update([0], () => 8n);
    expect(c.redisAsOf()).toBe(20);
    expect(c.onRedisClock(Number.NEGATIVE_INFINITY)).toBeUndefined();
  });

  it("takes the tightest lower bound of the clocks: a slow reply makes the as-of earlier, never later", () => {
    const c = new CurrentAsOf();
    c.clock(10_000, 1000); // offset 9000: a prompt reply
    c.clock(10_500, 3000); // offset 7500: a reply that arrived 1.5 s late
    c.seen(2000, ends([0, 1n]));
    c.update([0], () => 0n);
    expect(c.redisAsOf()).toBe(11_000);
  });
});
