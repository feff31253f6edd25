// The apply loop's Kafka commits (store's apply-loop.ts over log's partition-consumer.ts, composed as the applier does), against a real Kafka and Redis. kafkajs's autoCommit
// commits after every fetched batch whatever its interval says, and the partitions' concurrent batches
// each saw the interval pass: under load a shard node sent ~140 OffsetCommits a second, a third of the
// broker's CPU. The loop commits about once per interval however many batches it applies, and what it
// commits reaches what it applied.
// And the applier's apply delay (applier.ts, applyDelayMs): how long the newest record of its latest
// apply call waited after its write to the log, which the node's move drainer rests on while it is long
// (shard-run.ts). Records written while the applier is paused wait at least the pause; once nothing
// has been applied for a while the delay says nothing and is 0.
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { ensureScoreTopic } from "@ladder/log/kafka";
import { LogClient } from "@ladder/log/log-client";
import type { RecordProducer } from "@ladder/log/record-producer";
import { silentLogger } from "@ladder/platform/logger";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { builtFrom, shardStamp } from "@ladder/store";
import { ShardWriter, startApplyLoop } from "@ladder/store/writer";
import { startApplier } from "./applier.js";

const log = silentLogger();
const logClient = LogClient.unconnected(inject("kafkaBrokers"), "test-apply-loop", log);
const redis = new Redis(inject("redisUrls")[0]!);
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const slots = [0, 1, 2, 3];
let producer: RecordProducer;

beforeAll(async () => {
  await logClient.connect();
  producer = await logClient.producer({ idempotent: true });
});
afterAll(async () => {
  await producer.disconnect();
  await logClient.close();
  await redis.quit();
});

/** A fresh topic of `slots` partitions and a shard writer of them on a fresh key prefix. */
async function freshShard(name: string) {
  const ns = freshNamespace(name);
  await ensureScoreTopic(logClient, { topic: ns.topic, numSlots: slots.length }, { create: true });
  const stamp = shardStamp({ shardId: "shard-a", topic: ns.topic, numSlots: slots.length, slots, boards });
  const writer = new ShardWriter({
    shardId: "shard-a",
    stamp,
    builtFrom: builtFrom(stamp, "topic-id"),
    redis,
    keyPrefix: ns.keyPrefix,
    dedupWindowMs: 60_000,
  });
  await writer.recordBuiltFrom();
  return { ns, writer };
}

/** One INCREMENT record for each partition, of player p<partition> on `board`. */
const sendEach = (topic: string, board: string, eventId: string) =>
  producer.send(
    topic,
    slots.map((partition) => ({
      partition,
      key: `p${partition}`,
      value: encodeScoreEvent(
        {
          board,
          playerId: `p${partition}`,
          op: Operation.INCREMENT,
          value: 1n,
          timestampMs: 1_700_000_000_000n,
          eventId: `${eventId}-${partition}`,
        },
        Date.now(),
      ),
    })),
  );

describe("shard node > apply loop > Kafka commits", () => {
  it("commits about once per interval however many batches it applies, up to what it applied", async () => {
    const { ns, writer } = await freshShard("applyloop");
    const groupId = `${ns.topic}.shard.shard-a`;
    let batches = 0;
    let commits = 0;
    const loop = await startApplyLoop({
      logClient,
      topic: ns.topic,
      groupId,
      slots,
      writer,
      boards,
      chunk: 100,
      consumer: { maxWaitMs: 100, maxBytesPerPartition: 1024 * 1024 },
      commitEveryMs: 1000,
      onApplied: () => batches++,
      onCommit: () => commits++,
      onGap: () => {
        throw new Error("no gap expected");
      },
      onDrift: () => {
        throw new Error("no drift expected");
      },
    });
    const send = (n: number) => sendEach(ns.topic, "commits", `e${n}`);
    const applied = async (offset: bigint) => {
      for (let i = 0; i < 200; i++) {
        const got = await writer.appliedOffsetsOf(slots);
        if (got.every((o) => o >= offset)) return;
        await sleep(50);
      }
      throw new Error(`not applied up to ${offset}: ${await writer.appliedOffsetsOf(slots)}`);
    };
    try {
      // 40 produce requests 100 ms apart: the loop fetches and applies them as many small batches
      for (let n = 0; n < 40; n++) {
        await send(n);
        await sleep(100);
      }
      await applied(39n);
      const spanMs = 4000 + 1000; // the sends, and the last interval at most
      // one more record per partition once the interval has passed: its batch commits everything resolved
      await sleep(1100);
      await send(40);
      await applied(40n);
      await sleep(200);
      expect(batches).toBeGreaterThanOrEqual(40); // many batches (each partition's own)...
      expect(commits).toBeGreaterThanOrEqual(2);
      expect(commits).toBeLessThanOrEqual(Math.ceil((spanMs + 1300) / 1000) + 1); // ...about one commit a second
      const committed = await logClient.committedOffsets(groupId, ns.topic);
      expect([...committed.keys()].sort()).toEqual(slots);
      // committed = the next offset to read: at least everything applied before the last wave
      for (const offset of committed.values()) expect(offset).toBeGreaterThanOrEqual(40n);
    } finally {
      await loop.stop();
    }
  });
});

describe("shard node > applier > apply delay", () => {
  it("is how long the records applied last waited, and 0 once nothing is applied", async () => {
    const { ns, writer } = await freshShard("applier");
    const fail = (what: string) => () => {
      throw new Error(`no ${what} expected`);
    };
    const applier = await startApplier({
      logClient,
      topic: ns.topic,
      shardId: "shard-a",
      slots,
      writer,
      boards,
      applyBatch: 100,
      fetchWaitMs: 100,
      startAfter: new Map(slots.map((p) => [p, -1n])),
      known: new Map(),
      log,
      onFatal: fail("fatal error"),
      onRewind: fail("rewind"),
      onDrift: fail("drift"),
    });
    let n = 0;
    const send = () => sendEach(ns.topic, "delay", `e${n++}`);
    const appliedUpTo = async (offset: bigint) => {
      for (let i = 0; i < 200 && !slots.every((p) => (applier.known.get(p) ?? -1n) >= offset); i++) await sleep(25);
      expect(slots.map((p) => applier.known.get(p))).toEqual(slots.map(() => offset));
    };
    try {
      expect(applier.applyDelayMs).toBe(0); // nothing applied yet
      await send();
      await appliedUpTo(0n);
      const t0 = Date.now();
      // a paused applier: the records written meanwhile wait at least the pause
      applier.pause();
      await sleep(200);
      await send();
      await sleep(1500);
      applier.resume();
      await appliedUpTo(1n);
      const delay = applier.applyDelayMs;
      expect(delay).toBeGreaterThanOrEqual(1500);
      expect(delay).toBeLessThanOrEqual(Date.now() - t0);
      await sleep(1100); // nothing applied since: the delay is no longer the applier's
      expect(applier.applyDelayMs).toBe(0);
    } finally {
      await applier.stop();
    }
  });
});
