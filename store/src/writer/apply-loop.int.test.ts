// The apply loop's Kafka commits (apply-loop.ts), against a real Kafka and Redis. kafkajs's autoCommit
// commits after every fetched batch whatever its interval says, and the partitions' concurrent batches
// each saw the interval pass: under load a shard node sent ~140 OffsetCommits a second, a third of the
// broker's CPU. The loop commits about once per interval however many batches it applies, and what it
// commits reaches what it applied.
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import type { Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { createKafka, ensureScoreTopic } from "@ladder/log/kafka";
import { silentLogger } from "@ladder/platform/logger";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { builtFrom, shardStamp } from "../identity.js";
import { startApplyLoop } from "./apply-loop.js";
import { ShardWriter } from "./shard-writer.js";

const log = silentLogger();
const kafka = createKafka(inject("kafkaBrokers"), "test-apply-loop", log);
const admin = kafka.admin();
const redis = new Redis(inject("redisUrls")[0]!);
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const slots = [0, 1, 2, 3];
let producer: Producer;

beforeAll(async () => {
  await admin.connect();
  producer = kafka.producer({ maxInFlightRequests: 1, idempotent: true, allowAutoTopicCreation: false });
  await producer.connect();
});
afterAll(async () => {
  await producer.disconnect();
  await admin.disconnect();
  await redis.quit();
});

describe("store > apply loop > Kafka commits", () => {
  it("commits about once per interval however many batches it applies, up to what it applied", async () => {
    const ns = freshNamespace("applyloop");
    await ensureScoreTopic(kafka, { topic: ns.topic, numSlots: slots.length }, { create: true });
    const stamp = shardStamp({ shardId: "shard-a", topic: ns.topic, numSlots: slots.length, slots, boards });
    const writer = new ShardWriter({ shardId: "shard-a", stamp, builtFrom: builtFrom(stamp, "topic-id"), redis, keyPrefix: ns.keyPrefix, dedupWindowMs: 60_000 });
    await writer.recordBuiltFrom();
    const groupId = `${ns.topic}.shard.shard-a`;
    let batches = 0;
    const loop = await startApplyLoop({
      kafka, topic: ns.topic, groupId, slots, writer, boards, chunk: 100,
      consumer: { maxWaitTimeInMs: 100, maxBytesPerPartition: 1024 * 1024 },
      commitEveryMs: 1000,
      onApplied: () => batches++,
      onGap: () => { throw new Error("no gap expected"); },
      onDrift: () => { throw new Error("no drift expected"); },
    });
    let commits = 0;
    loop.consumer.on(loop.consumer.events.COMMIT_OFFSETS, () => commits++);
    const send = (n: number) => producer.send({
      topic: ns.topic, acks: -1,
      messages: slots.map((partition) => ({
        partition, key: `p${partition}`,
        value: encodeScoreEvent({ board: "commits", playerId: `p${partition}`, op: Operation.INCREMENT, value: 1n, timestampMs: 1_700_000_000_000n, eventId: `e${n}-${partition}` }, Date.now()),
      })),
    });
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
      const committed = await admin.fetchOffsets({ groupId, topics: [ns.topic] });
      const next = committed[0]!.partitions.map((p) => [p.partition, Number(p.offset)]).sort((a, b) => a[0]! - b[0]!);
      // committed = the next offset to read: at least everything applied before the last wave
      for (const [, offset] of next) expect(offset).toBeGreaterThanOrEqual(40);
    } finally {
      await loop.stop();
    }
  });
});
