/**
 * Reading a topic as an ordinary consumer group does (kafkajs's default assigner, offsets
 * auto-committed): for the tests of the local broker, which check that a group's committed
 * offsets survive a restart. The cluster itself never consumes this way (partition-consumer.ts).
 */
import type { LogClient } from "./log-client.js";
import type { LogRecord } from "./partition-consumer.js";

export interface GroupRead {
  groupId: string;
  topic: string;
  /** Records to read before stopping. */
  count: number;
  /** Fail when fewer have arrived by then (default 30 s). */
  timeoutMs?: number;
}

/** Joins `groupId`, reads `topic` from the group's offsets (the beginning for a new group) until `count` records arrived, commits and leaves. */
export async function readAsGroup(client: LogClient, o: GroupRead): Promise<Array<LogRecord & { partition: number }>> {
  const consumer = client.kafka.consumer({ groupId: o.groupId });
  await consumer.connect();
  const received: Array<LogRecord & { partition: number }> = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.subscribe({ topic: o.topic, fromBeginning: true });
    let done!: () => void;
    const enough = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        received.push({ partition, offset: message.offset, timestamp: message.timestamp, key: message.key, value: message.value });
        if (received.length >= o.count) done();
      },
    });
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`got ${received.length} of ${o.count} messages`)), o.timeoutMs ?? 30_000);
    });
    await Promise.race([enough, timeout]);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return received;
}
