// kafkajs 2.2.4's request queue re-armed a timer of negative delay after every request it
// fulfilled, so each broker connection checked its empty queue every millisecond forever (kafkajs
// issues #1556, #1604, #1704): most of an idle cluster's CPU. patches/kafkajs+2.2.4.patch (applied
// by patch-package on npm install) schedules a check only while requests are pending. These tests
// run the installed queue, so they fail where the patch is not applied.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const RequestQueue = require("kafkajs/src/network/requestQueue/index.js") as new (
  o: Record<string, unknown>,
) => {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
};
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const queue = () =>
  new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: true,
    clientId: "test",
    broker: "127.0.0.1:1",
    logger: silent,
  });

describe("kafkajs request queue (patched)", () => {
  it("arms no timer when nothing is pending, throttled or not", () => {
    const q = queue();
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.throttledUntil = Date.now() + 60_000;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it("still checks pending requests later: at the end of a throttle, or soon when not throttled", () => {
    const q = queue();
    q.pending.push({});
    q.throttledUntil = Date.now() + 60_000;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    clearTimeout(q.throttleCheckTimeoutId!);
    q.throttleCheckTimeoutId = null;
    q.throttledUntil = -1;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    clearTimeout(q.throttleCheckTimeoutId!);
  });
});

// The producer's per-record costs (same patch file): grouping a sendBatch's records by partition
// copied the partition's array for every record (quadratic in a partition's records), the default
// partitioner filtered every partition's metadata for each record even when the record named its
// partition (ingest's always do), and each record was spread into a new object before encoding.
// Together ~24% of ingest's CPU per update (2026-12-03: 41-43 us before, 31-32 us after). These tests
// check the patched code still does what kafkajs's own did: the same groups, partitions and records.
const groupMessagesPerPartition = require("kafkajs/src/producer/groupMessagesPerPartition.js") as (o: {
  topic: string;
  partitionMetadata: Array<{ partitionId: number; leader: number }>;
  messages: Array<Record<string, unknown>>;
  partitioner: (o: {
    topic: string;
    partitionMetadata: Array<{ partitionId: number; leader: number }>;
    message: Record<string, unknown>;
  }) => number;
}) => Record<string, Array<Record<string, unknown>>>;
const createPartitioner = require("kafkajs/src/producer/partitioners/default/index.js") as () => (o: {
  topic: string;
  partitionMetadata: Array<{ partitionId: number; leader: number }>;
  message: Record<string, unknown>;
}) => number;
const produceV3 = require("kafkajs/src/protocol/requests/produce/v3/request.js") as (o: Record<string, unknown>) => {
  encode(): Promise<{ buffer: Buffer }>;
};
const Decoder = require("kafkajs/src/protocol/decoder.js") as new (
  b: Buffer,
) => { readString(): string | null; readInt16(): number; readInt32(): number };
const decodeRecordBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder.js") as (
  d: unknown,
) => Promise<{ records: Array<{ key: Buffer | null; value: Buffer; headers: Record<string, Buffer | Buffer[]>; offset: string }> }>;

describe("kafkajs producer (patched)", () => {
  const metadata = Array.from({ length: 8 }, (_, i) => ({ partitionId: i, leader: i === 3 ? -1 : 1 }));

  it("groups records by partition in their order, without touching the records", () => {
    const messages = Array.from({ length: 50 }, (_, i) => ({ partition: (i * 7) % 8, value: Buffer.from(`v${i}`) }));
    const grouped = groupMessagesPerPartition({ topic: "t", partitionMetadata: metadata, messages, partitioner: createPartitioner() });
    expect(
      Object.keys(grouped)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const [p, list] of Object.entries(grouped)) {
      expect(list).toEqual(messages.filter((m) => m.partition === Number(p)));
      for (const m of list) expect(messages).toContain(m); // the same objects, not copies
    }
    expect(groupMessagesPerPartition({ topic: "t", partitionMetadata: [], messages, partitioner: createPartitioner() })).toEqual({});
  });

  it("the partitioner still honours a named partition (even one without a leader), a key's hash, and round-robin over partitions with leaders", () => {
    const partitioner = createPartitioner();
    expect(partitioner({ topic: "t", partitionMetadata: metadata, message: { partition: 3 } })).toBe(3);
    expect(partitioner({ topic: "t", partitionMetadata: metadata, message: { partition: 0 } })).toBe(0);
    const byKey = partitioner({ topic: "t", partitionMetadata: metadata, message: { key: "player-1" } });
    expect(partitioner({ topic: "t", partitionMetadata: metadata, message: { key: "player-1" } })).toBe(byKey);
    const robin = new Set(Array.from({ length: 40 }, () => partitioner({ topic: "t", partitionMetadata: metadata, message: {} })));
    expect([...robin].sort()).toEqual([0, 1, 2, 4, 5, 6, 7]); // never 3, which has no leader
  });

  it("encodes each record's key, value and headers, and nothing else of the message", async () => {
    const messages = [
      { key: "a", value: Buffer.from("one"), partition: 0, extra: "ignored" },
      { key: null, value: Buffer.from("two"), headers: { h: "x", multi: ["1", "2"] }, timestamp: "5" },
    ];
    const request = produceV3({
      acks: -1,
      timeout: 1000,
      compression: 0,
      topicData: [{ topic: "t", partitions: [{ partition: 0, firstSequence: 0, messages }] }],
    });
    const d = new Decoder((await request.encode()).buffer);
    expect([d.readString(), d.readInt16(), d.readInt32(), d.readInt32(), d.readString(), d.readInt32(), d.readInt32()]).toEqual([
      null,
      -1,
      1000,
      1,
      "t",
      1,
      0,
    ]);
    d.readInt32(); // the batch's size
    const batch = await decodeRecordBatch(d);
    expect(
      batch.records.map((r) => [
        r.key?.toString() ?? null,
        r.value.toString(),
        Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)])),
        r.offset,
      ]),
    ).toEqual([
      ["a", "one", {}, "0"],
      [null, "two", { h: "x", multi: ["1", "2"] }, "1"],
    ]);
  });
});
