// The apply loop's Kafka commits (store's apply-loop.ts over log's partition-consumer.ts, composed as the applier does), against a real Kafka and Redis. kafkajs's autoCommit
// commits after every fetched batch whatever its interval says, and the partitions' concurrent batches
// each saw the interval pass: under load a shard node sent ~140 OffsetCommits a second, a third of the
// broker's CPU. The loop commits about once per interval however many batches it applies, and what it
// commits reaches what it applied.
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

describe("shard node > apply loop > Kafka commits", () => {
  it("commits about once per interval however many batches it applies, up to what it applied", async () => {
    const ns = freshNamespace("applyloop");
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
    const send = (n: number) =>
      producer.send(
        ns.topic,
        slots.map((partition) => ({
          partition,
          key: `p${partition}`,
          value: encodeScoreEvent(
            {
              board: "commits",
              playerId: `p${partition}`,
              op: Operation.INCREMENT,
              value: 1n,
              timestampMs: 1_700_000_000_000n,
              eventId: `e${n}-${partition}`,
            },
            Date.now(),
          ),
        })),
      );
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
