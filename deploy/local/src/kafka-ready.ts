// Readiness of a Kafka broker as a client sees it: a kafkajs admin connects and describeCluster answers.
import { Kafka, logLevel } from "kafkajs";

export interface ClusterDescription {
  clusterId: string;
  brokers: string[];
}

/**
 * One attempt, failing fast (no kafkajs retries): resolves with the cluster's id and advertised
 * brokers, rejects if the broker does not answer or (when `expectClusterId` is given) is another
 * cluster, e.g. a previous broker still holding the port while it shuts down.
 */
export async function describeKafka(brokers: string[], expectClusterId?: string): Promise<ClusterDescription> {
  const kafka = new Kafka({
    clientId: "ladder-ready-check",
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
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
