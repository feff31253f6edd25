// Unit tests of the queueing logic only: the producer below is a stand-in that answers send the way
// @ladder/log's RecordProducer does (one result per partition with its base offset). Kafka itself is exercised by the
// integration tests (test/*.int.test.ts), which run ingest against a real broker.
import type { RecordProducer, Written } from "@ladder/log/record-producer";
import { describe, expect, it } from "vitest";
import { Code } from "@ladder/model/errors";
import { silentLogger } from "@ladder/platform/logger";
import { Registry } from "@ladder/platform/metrics";
import { GroupCommitProducer, type OutRecord } from "./group-commit-producer.js";
import { ingestMetrics } from "./metrics.js";

type Send = { messages: OutRecord[]; release(): void; fail(err: Error): void };

function standInProducer() {
  const sends: Send[] = [];
  const ends = new Map<number, bigint>();
  const producer = {
    send: (_topic: string, messages: OutRecord[]) =>
      new Promise<Written[]>((resolve, reject) => {
        sends.push({
          messages,
          fail: reject,
          release: () => {
            const counts = new Map<number, number>();
            for (const m of messages) counts.set(m.partition, (counts.get(m.partition) ?? 0) + 1);
            resolve(
              [...counts].map(([partition, n]) => {
                const base = ends.get(partition) ?? 0n;
                ends.set(partition, base + BigInt(n));
                return { partition, baseOffset: String(base) };
              }),
            );
          },
        });
      }),
  };
  return { producer: producer as unknown as RecordProducer, sends };
}

const rec = (partition: number, key = "p"): OutRecord => ({ partition, key, value: Buffer.from("v") });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("ingest > group commit producer", () => {
  it("sends calls that queue during a flush together, and tells each its own offsets", async () => {
    const { producer, sends } = standInProducer();
    const gc = new GroupCommitProducer({ producer, topic: "t", log: silentLogger() });
    const a = gc.submit([rec(0), rec(1)], 10_000);
    await tick();
    const b = gc.submit([rec(0), rec(0)], 10_000);
    const c = gc.submit([rec(1)], 10_000);
    expect(sends).toHaveLength(1); // b and c wait for a's flush
    sends[0]!.release();
    expect(await a).toEqual(
      new Map([
        [0, 0n],
        [1, 0n],
      ]),
    );
    await tick();
    expect(sends).toHaveLength(2);
    expect(sends[1]!.messages).toHaveLength(3); // one produce request for b and c
    sends[1]!.release();
    expect(await b).toEqual(new Map([[0, 2n]]));
    expect(await c).toEqual(new Map([[1, 1n]]));
  });

  it("fails every call of a failed flush with UNAVAILABLE", async () => {
    const { producer, sends } = standInProducer();
    const gc = new GroupCommitProducer({ producer, topic: "t", log: silentLogger() });
    const a = gc.submit([rec(0)], 10_000);
    await tick();
    sends[0]!.fail(new Error("broker gone"));
    await expect(a).rejects.toMatchObject({ code: Code.UNAVAILABLE, retriable: true });
  });

  it("drops a call that times out in the queue, so nothing of it is sent", async () => {
    const { producer, sends } = standInProducer();
    const gc = new GroupCommitProducer({ producer, topic: "t", log: silentLogger() });
    const a = gc.submit([rec(0)], 10_000);
    await tick();
    const late = gc.submit([rec(5)], 5);
    await expect(late).rejects.toMatchObject({ code: Code.UNAVAILABLE, message: /nothing was written/ });
    sends[0]!.release();
    await a;
    await tick();
    expect(sends).toHaveLength(1);
  });

  it("refuses new calls with RESOURCE_EXHAUSTED when too many records wait", async () => {
    const { producer, sends } = standInProducer();
    const gc = new GroupCommitProducer({ producer, topic: "t", log: silentLogger(), maxQueuedRecords: 3 });
    const a = gc.submit([rec(0), rec(0)], 10_000);
    await tick(); // a is in flight: its records no longer wait
    const b = gc.submit([rec(0), rec(0), rec(0)], 10_000);
    await expect(gc.submit([rec(1)], 10_000)).rejects.toMatchObject({ code: Code.RESOURCE_EXHAUSTED, retriable: true });
    sends[0]!.release();
    await a;
    await tick();
    sends[1]!.release();
    await b;
    const d = gc.submit([rec(1)], 10_000); // drained: accepted again
    await tick();
    sends[2]!.release();
    expect(await d).toEqual(new Map([[1, 0n]]));
  });

  it("counts the queue, each flush's records, calls and latency, what was acknowledged and what was refused and why", async () => {
    const { producer, sends } = standInProducer();
    const registry = new Registry();
    const metrics = ingestMetrics(registry);
    const value = async (name: string, labels: Record<string, string> = {}) => {
      const samples = (await registry.getMetricsAsJSON()).flatMap((m) =>
        m.values.map((v) => ({ ...v, name: (v as { metricName?: string }).metricName ?? m.name })),
      );
      return samples
        .filter((v) => v.name === name && Object.entries(labels).every(([k, l]) => v.labels[k] === l))
        .reduce((sum, v) => sum + v.value, 0);
    };
    const gc = new GroupCommitProducer({ producer, topic: "t", log: silentLogger(), maxQueuedRecords: 4, metrics });
    const a = gc.submit([rec(0)], 10_000);
    await tick(); // a in flight
    const b = gc.submit([rec(0), rec(1)], 10_000);
    const c = gc.submit([rec(1)], 10_000);
    expect(await value("ladder_ingest_queued_records")).toBe(3);
    expect(await value("ladder_ingest_queued_calls")).toBe(2);
    await expect(gc.submit([rec(2), rec(2)], 10_000)).rejects.toMatchObject({ code: Code.RESOURCE_EXHAUSTED });
    sends[0]!.release();
    await a;
    await tick();
    expect(await value("ladder_ingest_queued_records")).toBe(0);
    sends[1]!.fail(new Error("broker gone"));
    await expect(b).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    await expect(c).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    expect(await value("ladder_ingest_flush_records_count")).toBe(2);
    expect(await value("ladder_ingest_flush_records_sum")).toBe(4);
    expect(await value("ladder_ingest_flush_calls_sum")).toBe(3);
    expect(await value("ladder_ingest_flush_seconds_count", { outcome: "ok" })).toBe(1);
    expect(await value("ladder_ingest_flush_seconds_count", { outcome: "error" })).toBe(1);
    expect(await value("ladder_ingest_acknowledged_records_total")).toBe(1);
    expect(await value("ladder_ingest_refused_calls_total", { reason: "saturated" })).toBe(1);
    expect(await value("ladder_ingest_refused_calls_total", { reason: "log_error" })).toBe(2);
    await expect(gc.submit([rec(3)], 1)).rejects.toMatchObject({ code: Code.UNAVAILABLE }); // in flight, never answered
    expect(await value("ladder_ingest_refused_calls_total", { reason: "deadline" })).toBe(1);
  });
});
