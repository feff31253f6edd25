/**
 * Group commit onto the score log.
 *
 * Every SubmitScores call queues its records and waits. One flush at a time sends
 * everything queued as a single produce request (one send of @ladder/log's RecordProducer: one record batch per
 * partition), with the idempotent producer and acks=all; when it is acknowledged each
 * waiting call learns the offsets of its own records. While a flush is in flight new
 * calls accumulate, so under load each produce request carries many calls: the cost of
 * a Kafka round trip is shared instead of paid per call, and log order is queue order,
 * which keeps one player's updates in the order ingest acknowledged them.
 *
 * A call whose deadline passes while still queued is removed and fails with UNAVAILABLE:
 * nothing of it is written. A call whose deadline passes while its flush is in flight
 * (the broker is unreachable and the idempotent producer keeps retrying) also fails with
 * UNAVAILABLE, but its records may still land when the broker returns; so may those of a
 * flush that failed. Either way the caller was not acknowledged and retries with the
 * same event ids. An acknowledged call is always durable.
 *
 * Back-pressure: when more than `maxQueuedRecords` records are waiting, new calls are
 * refused at once with RESOURCE_EXHAUSTED (retriable, nothing written) instead of joining
 * a queue they could only time out in.
 *
 * Metrics (metrics.ts): the queue's records and calls, each flush's records, calls and
 * latency, the records acknowledged, and the calls refused by reason.
 */
import type { RecordProducer } from "@ladder/log/record-producer";
import { LadderError, Code, unavailable } from "@ladder/model/errors";
import type { Logger } from "@ladder/platform/logger";
import { secondsSince } from "@ladder/platform/metrics";
import { ingestMetrics, type IngestMetrics } from "./metrics.js";

export interface OutRecord {
  partition: number;
  key: string;
  value: Buffer;
}

/** The last offset a call wrote in each partition it touched. */
export type WrittenOffsets = Map<number, bigint>;

interface Pending {
  records: OutRecord[];
  /** Answered already (acknowledged, failed or timed out). */
  settled: boolean;
  resolve(offsets: WrittenOffsets): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout;
}

export interface GroupCommitOptions {
  producer: RecordProducer;
  topic: string;
  log: Logger;
  /** Records per produce request at most (a single call is never split); default 5,000. */
  maxRecordsPerFlush?: number;
  /** Records waiting at most before new calls are refused; default 100,000. */
  maxQueuedRecords?: number;
  /** Where to count (default: the process's registry). */
  metrics?: IngestMetrics;
}

export class GroupCommitProducer {
  private queue: Pending[] = [];
  private queuedRecords = 0;
  private flushing = false;

  private readonly producer: RecordProducer;
  private readonly topic: string;
  private readonly log: Logger;
  private readonly maxRecordsPerFlush: number;
  private readonly maxQueuedRecords: number;
  private readonly metrics: IngestMetrics;

  constructor(o: GroupCommitOptions) {
    this.producer = o.producer;
    this.topic = o.topic;
    this.log = o.log;
    this.maxRecordsPerFlush = o.maxRecordsPerFlush ?? 5000;
    this.maxQueuedRecords = o.maxQueuedRecords ?? 100_000;
    this.metrics = o.metrics ?? ingestMetrics();
  }

  /** Keeps the queue gauges in step with the queue. */
  private queued(): void {
    this.metrics.queuedRecords.set(this.queuedRecords);
    this.metrics.queuedCalls.set(this.queue.length);
  }

  /** Queues `records` and resolves once the log has acknowledged them. */
  submit(records: OutRecord[], timeoutMs: number): Promise<WrittenOffsets> {
    if (this.queuedRecords + records.length > this.maxQueuedRecords) {
      this.metrics.refusedCalls.inc({ reason: "saturated" });
      return Promise.reject(
        new LadderError(Code.RESOURCE_EXHAUSTED, `ingest is saturated (${this.queuedRecords} records waiting for the log): retry later`, {
          retriable: true,
        }),
      );
    }
    this.queuedRecords += records.length;
    return new Promise((resolve, reject) => {
      const pending: Pending = { records, settled: false, resolve, reject, timer: undefined as unknown as NodeJS.Timeout };
      pending.timer = setTimeout(() => this.expire(pending, timeoutMs), timeoutMs);
      this.queue.push(pending);
      this.queued();
      if (!this.flushing) void this.flushLoop();
    });
  }

  private expire(pending: Pending, timeoutMs: number): void {
    const i = this.queue.indexOf(pending);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.queuedRecords -= pending.records.length;
      this.queued();
    }
    if (!pending.settled) this.metrics.refusedCalls.inc({ reason: "deadline" });
    const fate = i >= 0 ? "nothing was written" : "it may still be written: retry with the same event ids";
    this.settle(pending, () => pending.reject(unavailable(`the score log did not acknowledge the batch within ${timeoutMs} ms; ${fate}`)));
  }

  private settle(pending: Pending, answer: () => void): void {
    if (pending.settled) return;
    pending.settled = true;
    clearTimeout(pending.timer);
    answer();
  }

  private async flushLoop(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) await this.flush(this.take());
    } finally {
      this.flushing = false;
    }
  }

  private take(): Pending[] {
    let n = 0;
    let records = 0;
    while (n < this.queue.length && (n === 0 || records + this.queue[n]!.records.length <= this.maxRecordsPerFlush)) {
      records += this.queue[n]!.records.length;
      n++;
    }
    this.queuedRecords -= records;
    const taken = this.queue.splice(0, n);
    this.queued();
    return taken;
  }

  private async flush(calls: Pending[]): Promise<void> {
    const messages = calls.flatMap((c) => c.records);
    this.metrics.flushRecords.observe(messages.length);
    this.metrics.flushCalls.observe(calls.length);
    const startedAt = performance.now();
    try {
      const results = await this.producer.send(this.topic, messages);
      this.metrics.flushSeconds.observe({ outcome: "ok" }, secondsSince(startedAt));
      this.metrics.acknowledgedRecords.inc(messages.length);
      const base = new Map(results.map((r) => [r.partition, BigInt(r.baseOffset)]));
      const seen = new Map<number, bigint>();
      for (const call of calls) {
        const written: WrittenOffsets = new Map();
        for (const r of call.records) {
          const index = seen.get(r.partition) ?? 0n;
          seen.set(r.partition, index + 1n);
          written.set(r.partition, base.get(r.partition)! + index);
        }
        this.settle(call, () => call.resolve(written));
      }
    } catch (err) {
      this.metrics.flushSeconds.observe({ outcome: "error" }, secondsSince(startedAt));
      this.log.warn({ err, calls: calls.length, records: messages.length }, "produce failed");
      this.metrics.refusedCalls.inc({ reason: "log_error" }, calls.filter((c) => !c.settled).length);
      for (const call of calls)
        this.settle(call, () => call.reject(unavailable(`the score log is unavailable: ${(err as Error).message}`, err)));
    }
  }
}
