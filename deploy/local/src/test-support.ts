// Shared by the integration tests of deploy/local: the Kafka jars (fetched once into the same cache
// the local cluster uses), temporary directories, and small kafkajs helpers.
import { mkdtemp } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { type Consumer, Kafka, type KafkaMessage, logLevel } from "kafkajs";
import { KAFKA_BACKOFF, kafkaRetry } from "@ladder/log/kafka-retry";
import { silentLogger } from "@ladder/platform/logger";
import { ensureKafkaJars } from "./kafka-jars.js";

export const CACHE_DIR = join(homedir(), ".cache", "ladder");

export function kafkaLibs(): Promise<string> {
  return ensureKafkaJars({ cacheDir: CACHE_DIR, log: silentLogger() });
}

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `ladder-${prefix}-`));
}

export function kafkaClient(brokers: string[]): Kafka {
  return new Kafka({ clientId: "ladder-int-test", brokers, logLevel: logLevel.ERROR, retry: kafkaRetry(KAFKA_BACKOFF, 8) });
}

export interface Received {
  partition: number;
  message: KafkaMessage;
}

/**
 * Runs `consumer` (already subscribed) until `count` messages have arrived, then disconnects it
 * (committing offsets when auto-commit is on). Rejects after `timeoutMs`.
 */
export async function consumeCount(consumer: Consumer, count: number, timeoutMs = 30_000): Promise<Received[]> {
  const received: Received[] = [];
  let done!: () => void;
  const enough = new Promise<void>((resolve) => (done = resolve));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({ partition, message });
      if (received.length >= count) done();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`got ${received.length} of ${count} messages`)), timeoutMs);
  });
  try {
    await Promise.race([enough, timeout]);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return received;
}
