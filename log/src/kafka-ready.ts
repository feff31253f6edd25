// Readiness of a Kafka broker as a client sees it. `describeKafka` is one fast check (an admin connects
// and describeCluster answers). `warmKafka` then waits for what a fresh broker still lacks when it first
// answers: the group coordinator (creating __consumer_offsets on first use, then loading it) and a block
// of producer ids. Without it, a client's first JoinGroup or idempotent InitProducerId fails with
// "The coordinator is loading" (retriable, but kafkajs logs it as an error and restarts the consumer).
import { Kafka, logLevel } from "kafkajs";
import { kafkaRetry } from "./kafka-retry.js";
import { LAUNCH_BACKOFF } from "@ladder/platform/backoff";
import { kafkajsSecurity, type KafkaSecurity } from "./kafka-security.js";

export interface ClusterDescription {
  clusterId: string;
  brokers: string[];
}

const PROBE_GROUP = "ladder-ready-check";

function quietClient(brokers: string[], retries: number, security: KafkaSecurity | undefined): Kafka {
  return new Kafka({
    clientId: "ladder-ready-check",
    brokers,
    ...kafkajsSecurity(security),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: kafkaRetry(LAUNCH_BACKOFF, retries),
  });
}

/**
 * One attempt, failing fast (no kafkajs retries): resolves with the cluster's id and advertised
 * brokers, rejects if the broker does not answer or (when `expectClusterId` is given) is another
 * cluster, e.g. a previous broker still holding the port while it shuts down.
 */
export async function describeKafka(brokers: string[], expectClusterId?: string, security?: KafkaSecurity): Promise<ClusterDescription> {
  const admin = quietClient(brokers, 0, security).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (expectClusterId !== undefined && cluster.clusterId !== expectClusterId) {
      throw new Error(`cluster id is ${cluster.clusterId}, expected ${expectClusterId}`);
    }
    return { clusterId: cluster.clusterId, brokers: cluster.brokers.map((b) => `${b.host}:${b.port}`) };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Waits (through kafkajs' own retries, about 15 s at most) until the group coordinator answers for a
 * probe group and an idempotent producer gets a producer id. Rejects if either still fails.
 */
export async function warmKafka(brokers: string[], security?: KafkaSecurity): Promise<void> {
  const kafka = quietClient(brokers, 20, security);
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  try {
    await admin.connect();
    await admin.describeGroups([PROBE_GROUP]);
    await producer.connect();
  } finally {
    await producer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}
