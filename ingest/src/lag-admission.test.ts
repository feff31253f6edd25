import { describe, expect, it } from "vitest";
import { Code, LadderError } from "@ladder/model/errors";
import { Registry } from "@ladder/platform/metrics";
import { LagAdmission } from "./lag-admission.js";
import { ingestMetrics } from "./metrics.js";
import type { ShardReaders } from "./shard-readers.js";

/**
 * Two shards: partitions 0 and 1 on shard-a, 2 and 3 on shard-b. Each shard's applied offsets and
 * serving flag are set by the test, as a shard node's apply loop and heartbeat would set them.
 */
function cluster() {
  const applied = new Map<number, bigint>();
  const serving = new Map<string, boolean>([
    ["shard-a", true],
    ["shard-b", true],
  ]);
  const asked: string[] = [];
  const reader = (shardId: string) => ({
    shardId,
    progress: async (partitions: readonly number[]) => {
      asked.push(shardId);
      return { applied: partitions.map((p) => applied.get(p) ?? -1n), serving: serving.get(shardId)! };
    },
  });
  const table = {
    epoch: 1,
    placement: { slotToShard: ["shard-a", "shard-a", "shard-b", "shard-b"] },
    readers: new Map([
      ["shard-a", reader("shard-a")],
      ["shard-b", reader("shard-b")],
    ]),
  };
  const shards = { current: () => table } as unknown as ShardReaders;
  const registry = new Registry();
  return { applied, serving, asked, shards, metrics: ingestMetrics(registry), registry };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Admits a batch of one record on each partition of `offsets` and acknowledges it with those offsets. */
async function write(gate: LagAdmission, offsets: Array<[number, bigint]>): Promise<void> {
  const ticket = await gate.admit(
    offsets.map(([p]) => p),
    Date.now() + 60_000,
  );
  gate.written(ticket, new Map(offsets));
}
const far = () => Date.now() + 60_000;

/**
 * shard-a applying 2 records per ms of partition 0 while it owes any, and a writer to it through
 * `gate`: send(n) admits n records, then acknowledges them after the log's round trip (1 ms);
 * mostOwed is the most admitted and not yet applied that a watched send saw.
 */
function applyingShard(c: ReturnType<typeof cluster>, gate: LagAdmission) {
  let logged = -1n; // the last offset acknowledged
  let applied = -1n;
  let admitted = 0n;
  let last = Date.now();
  const ticker = setInterval(() => {
    const now = Date.now();
    applied = applied + BigInt(2 * (now - last));
    if (applied > logged) applied = logged;
    c.applied.set(0, applied);
    last = now;
  }, 1);
  const shard = {
    mostOwed: 0n,
    async send(records: number, watch = true): Promise<void> {
      const ticket = await gate.admit(Array(records).fill(0), far());
      admitted += BigInt(records);
      const owed = admitted - 1n - applied; // admitted, in flight or logged, and not applied
      if (watch && owed > shard.mostOwed) shard.mostOwed = owed;
      await sleep(1); // the log's round trip
      logged += BigInt(records);
      gate.written(ticket, new Map([[0, logged]]));
    },
    stop: () => clearInterval(ticker),
  };
  return shard;
}

async function refusal(p: Promise<unknown>): Promise<LadderError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LadderError) return err;
    throw err;
  }
  throw new Error("admitted, expected a refusal");
}

describe("LagAdmission", () => {
  it("admits at once while no shard owes anything, and asks no shard", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 10, waitMs: 50, pollMs: 2 }, c.shards, c.metrics);
    await gate.admit([0, 1, 2, 3], far());
    await sleep(20);
    expect(c.asked).toEqual([]);
    expect((await c.metrics.lagWaits.get()).values[0]?.value ?? 0).toBe(0);
    await gate.close();
  });

  it("refuses, naming the shard, its lag, its target and the bound, once its oldest unapplied record stays older than its target", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 20, waitMs: 60, pollMs: 5 }, c.shards, c.metrics);
    await write(gate, [[2, 7n]]); // shard-b owes offset 7 from now on
    await sleep(40);
    const started = Date.now();
    const err = await refusal(gate.admit([3], far()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(55); // it waited its wait before refusing
    expect(err.code).toBe(Code.RESOURCE_EXHAUSTED);
    // the target starts at the aim, 80% of the bound: the rest is headroom for pauses
    expect(err.message).toMatch(
      /^shard-b is \d+ ms behind the log, past the 16 ms ingest admits there now to hold the bound of 20 ms \(LADDER_INGEST_MAX_LAG_MS\)/,
    );
    expect(err.message).toContain("nothing of this batch was written");
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(5);
    const refused = (await c.metrics.refusedCalls.get()).values.find((v) => v.labels.reason === "lag");
    expect(refused?.value).toBe(1);
    await gate.close();
  });

  it("lets a waiting write in once the shard applied what it owed", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 20, waitMs: 5_000, pollMs: 5 }, c.shards, c.metrics);
    await write(gate, [
      [0, 3n],
      [1, 9n],
    ]);
    await sleep(40);
    const admitted = gate.admit([0], far());
    await sleep(30);
    c.applied.set(0, 3n); // partition 1 (also shard-a's) still owes 9: the shard is still behind
    await sleep(30);
    let done = false;
    void admitted.then(() => (done = true));
    await sleep(20);
    expect(done).toBe(false);
    c.applied.set(1, 9n);
    await admitted;
    expect((await c.metrics.lagWaits.get()).values[0]?.value).toBe(1);
    await gate.close();
  });

  it("a shard behind holds back only the writes to it", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 20, waitMs: 5_000, pollMs: 5 }, c.shards, c.metrics);
    await write(gate, [[0, 1n]]);
    await sleep(40);
    gate.failed(await gate.admit([2, 3], far())); // shard-b owes nothing; then the log fails that batch
    const err = await refusal(gate.admit([3, 0], Date.now() + 30)); // shard-a is behind; the deadline comes first
    expect(err.message).toMatch(/^shard-a is /);
    await gate.close();
  });

  it("does not hold writes back for a shard whose node does not serve (an outage, not load)", async () => {
    const c = cluster();
    c.serving.set("shard-a", false);
    const gate = new LagAdmission({ maxLagMs: 20, waitMs: 5_000, pollMs: 5 }, c.shards, c.metrics);
    await write(gate, [[0, 1n]]);
    await sleep(40); // polled: shard-a says it does not serve
    await gate.admit([0], far());
    c.serving.set("shard-a", true); // back, still owing offset 1: writes to it wait again
    await sleep(20);
    const err = await refusal(gate.admit([0], Date.now() + 30));
    expect(err.message).toMatch(/^shard-a is /);
    await gate.close();
  });

  it("keeps the oldest time when acknowledgements merge, so a lag is never under-stated", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 1_000, waitMs: 0, pollMs: 5_000 }, c.shards, c.metrics);
    await write(gate, [[0, 1n]]);
    const first = Date.now(); // the first write's time is at most this: its lag at first + 1,100 is at least 1,100
    for (let i = 2; i < 6_000; i++) gate.written({ records: new Map() }, new Map([[0, BigInt(i)]])); // more entries than a partition keeps
    await sleep(Math.max(0, first + 1_100 - Date.now()));
    const err = await refusal(gate.admit([0], far()));
    expect(Number(/is (\d+) ms behind/.exec(err.message)![1])).toBeGreaterThanOrEqual(1_100);
    await gate.close();
  });

  it("lets writes waiting together in only as far as the shard's rate and the bound allow", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 100, waitMs: 30_000, pollMs: 5 }, c.shards, c.metrics);
    const shard = applyingShard(c, gate);
    // first one writer, then another: the shard is seen busy and its rate learnt
    const warm = Date.now() + 300;
    await Promise.all(
      [0, 1].map(async () => {
        while (Date.now() < warm) await shard.send(40, false);
      }),
    );
    await Promise.all(Array.from({ length: 40 }, () => shard.send(40))); // then 40 at once
    shard.stop();
    // 1,600 records at 2 per ms is 800 ms of work: let in all at once, 1,600 would be owed; within the
    // bound, about 100 ms at 2 per ms plus a batch (slack for the rate being learnt and a busy machine)
    expect(Number(shard.mostOwed)).toBeLessThanOrEqual(800);
    expect((await c.metrics.lagWaits.get()).values[0]?.value).toBeGreaterThan(0);
    await gate.close();
  });

  it("holds writes together only until a shard's first poll when it applies faster than it is written to", async () => {
    const c = cluster();
    let logged = -1n;
    const gate = new LagAdmission({ maxLagMs: 100, waitMs: 2_000, pollMs: 5 }, c.shards, c.metrics);
    const send = async () => {
      const ticket = await gate.admit(Array(10).fill(0), far());
      await sleep(1); // the log's round trip
      logged += 10n;
      gate.written(ticket, new Map([[0, logged]]));
      c.applied.set(0, logged); // applied at once: never seen owing from one poll to the next
    };
    await send();
    await sleep(30); // polled: asked, nothing owed
    for (let round = 0; round < 20; round++) await Promise.all(Array.from({ length: 8 }, send)); // 8 at a time, 20 times
    expect((await c.metrics.lagWaits.get()).values[0]?.value ?? 0).toBe(0); // none waited for another
    expect((await c.metrics.refusedCalls.get()).values.find((v) => v.labels.reason === "lag")?.value ?? 0).toBe(0);
    await gate.close();
  });

  it("lets writes arriving together into a caught-up shard whose rate is not known yet a window at a time", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 100, waitMs: 30_000, pollMs: 5 }, c.shards, c.metrics);
    const shard = applyingShard(c, gate);
    await shard.send(1, false);
    await sleep(30); // polled: caught up, never seen busy, no rate
    await Promise.all(Array.from({ length: 40 }, () => shard.send(40))); // 1,600 records at once: 800 ms of work
    shard.stop();
    // one window of 500 records, then what the rate learnt meanwhile and the bound allow (about 200)
    expect(Number(shard.mostOwed)).toBeLessThanOrEqual(500 + 40);
    expect((await c.metrics.lagWaits.get()).values[0]?.value).toBeGreaterThan(0);
    await gate.close();
  });

  it("admits less to a shard whose records took longer than its aim, and more again, up to the aim, once they keep within it", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 40, waitMs: 30, pollMs: 5 }, c.shards, c.metrics);
    const target = async () => (await c.metrics.admitTarget.get()).values.find((v) => v.labels.shard === "shard-a")?.value ?? Number.NaN;
    await write(gate, [[0, 0n]]);
    await sleep(120);
    c.applied.set(0, 0n); // applied about 120 ms after its acknowledgement: 3 times the bound
    await sleep(30);
    const shrunk = await target();
    expect(shrunk).toBeGreaterThanOrEqual(0.01); // never below a quarter of the bound
    expect(shrunk).toBeLessThan(0.02); // about 32 × 32 / 120 ms (the aim is 80% of the bound), so the floor
    // a record owed for about 25 ms: within the bound, past what is admitted now, so refused saying both
    await write(gate, [[1, 0n]]);
    await sleep(25);
    const err = await refusal(gate.admit([0], far()));
    expect(err.message).toMatch(
      /^shard-a is \d+ ms behind the log, past the \d+ ms ingest admits there now to hold the bound of 40 ms \(LADDER_INGEST_MAX_LAG_MS\)/,
    );
    c.applied.set(1, 0n);
    // records applied at once: the target grows back to the aim, 32 ms, and no further
    for (let i = 1n; i <= 60n; i++) {
      await write(gate, [[0, i]]);
      c.applied.set(0, i);
      await sleep(6);
    }
    await sleep(20);
    expect(await target()).toBeGreaterThan(0.025);
    expect(await target()).toBeLessThanOrEqual(0.032);
    await gate.close();
  });

  it("observes each span of acknowledgements' freshness, from its acknowledgement to the look that found it applied", async () => {
    const c = cluster();
    let clock = 1_000;
    const gate = new LagAdmission({ maxLagMs: 10_000, waitMs: 5_000, pollMs: 2 }, c.shards, c.metrics, () => clock);
    await write(gate, [
      [0, 3n],
      [2, 5n],
    ]);
    clock += 2; // within one span of partition 0: merged into its first entry, one observation
    gate.written({ records: new Map() }, new Map([[0, 4n]])); // (no admission: a shard owing records without a rate would hold it)
    const observed = async () => {
      const values = (await c.metrics.freshness.get()).values;
      const sum = (name: string, match: (labels: Record<string, unknown>) => boolean) =>
        values.filter((v) => v.metricName === name && match(v.labels)).reduce((n, v) => n + v.value, 0);
      const count = sum("ladder_ingest_freshness_seconds_count", () => true);
      const le = (bound: number) => sum("ladder_ingest_freshness_seconds_bucket", (l) => l.le === bound);
      const countOf = (shard: string) => sum("ladder_ingest_freshness_seconds_count", (l) => l.shard === shard);
      return { count, le, countOf };
    };
    const until = async (count: number) => {
      for (let i = 0; i < 500 && (await observed()).count < count; i++) await sleep(2);
    };
    clock = 1_120;
    c.applied.set(0, 4n);
    await until(1);
    clock = 1_300;
    c.applied.set(2, 5n);
    await until(2);
    const { count, le, countOf } = await observed();
    expect(count).toBe(2);
    expect([countOf("shard-a"), countOf("shard-b")]).toEqual([1, 1]);
    expect([le(0.1), le(0.125), le(0.25), le(0.3)]).toEqual([0, 1, 1, 2]); // 120 ms (partition 0), 300 ms (partition 2)
    await gate.close();
  });

  it("is off at a bound of 0", async () => {
    const c = cluster();
    const gate = new LagAdmission({ maxLagMs: 0, waitMs: 0, pollMs: 1 }, c.shards, c.metrics);
    await write(gate, [[0, 1n]]);
    await sleep(20);
    await gate.admit([0], far());
    expect(c.asked).toEqual([]);
    await gate.close();
  });
});
