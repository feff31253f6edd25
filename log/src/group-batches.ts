/**
 * Reading a topic as one consumer group shared by several processes, batch by batch, at least
 * once: each partition is read by one member at a time (kafkajs's default assigner), a batch's
 * position is committed only after its handler resolved, and a member that dies hands its
 * partitions to the others after the session timeout, which read its last batches again. For
 * work whose effect is idempotent (the team deriver: router/src/control/team-deriver.ts); the
 * shards' apply owns its offsets instead (partition-consumer.ts).
 */
import kafkajs, { type Consumer } from "kafkajs";
import type { LogClient } from "./log-client.js";

export interface GroupBatches {
  groupId: string;
  topic: string;
  /** How long a dead member keeps its partitions, ms. */
  sessionTimeoutMs: number;
  /** Batches of different partitions handled at once (each partition's in order). */
  concurrency: number;
  /** Handles one batch of `partition`: its values in offset order, the last offset. A throw reads it again. */
  onBatch(partition: number, values: Array<Buffer | null>, lastOffset: bigint): Promise<void>;
}

export interface GroupReading {
  stop(): Promise<void>;
}

/** Joins `groupId` and reads `topic` from the group's positions (from the beginning for a new group). */
export async function readGroupBatches(client: LogClient, o: GroupBatches): Promise<GroupReading> {
  const consumer: Consumer = client.kafka.consumer({ groupId: o.groupId, sessionTimeout: o.sessionTimeoutMs, heartbeatInterval: 1000 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: o.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: o.concurrency,
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        if (batch.messages.length === 0) return;
        const last = batch.messages.at(-1)!.offset;
        await o.onBatch(
          batch.partition,
          batch.messages.map((m) => m.value),
          BigInt(last),
        );
        // the batch's work is done: only now is its position committed
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(BigInt(last) + 1n) }]);
        resolveOffset(last);
        await heartbeat();
      },
    });
  } catch (err) {
    await consumer.disconnect().catch(() => {});
    throw err;
  }
  return { stop: () => consumer.disconnect() };
}

/** The group of the routers' team derivers (router/src/control/team-deriver.ts): under the prefix its ACL grants (kafka-acls.ts). */
export const teamDeriverGroupOf = (scoreTopic: string) => `${scoreTopic}.deriver.teams`;

/** How many partitions each member of `groupId` holds now (one number per member). */
export async function groupMemberPartitions(client: LogClient, groupId: string): Promise<number[]> {
  const admin = client.kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return (groups[0]?.members ?? []).map((m) => {
      const assigned = kafkajs.AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
      return Object.values(assigned?.assignment ?? {}).reduce((n, ps) => n + ps.length, 0);
    });
  } finally {
    await admin.disconnect();
  }
}
