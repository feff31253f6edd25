/**
 * LogClient: the one handle on the log a service holds, in log's own types. It carries the
 * kafkajs client and an admin (connected by open()) for log's own functions; callers use its
 * methods and never name a kafkajs type:
 *
 *   consume        partitions whose offsets the caller owns (partition-consumer.ts)
 *   offsets        each partition's low and high offsets of a topic (retried while leaders settle)
 *   endOffsets     each partition's high offset (the next to be written); endOffsetsOnce, unretried
 *   brokers        the cluster's brokers
 *   describeTopic  a topic's partitions (replicas of each) and configuration entries
 *   createTopic    a plain topic, waiting for its leaders (the tests' own topics)
 *   committedOffsets  a group's committed offsets of a topic
 *   partitionsOf   a topic's partition count, undefined when it does not exist
 *   readRange      records from..until of one partition (snapshot-topic.ts)
 *   deleteGroup    a consumer group, once its throwaway use is over
 *   producer       a record producer (record-producer.ts)
 *
 * The write side of a shard (@ladder/store/writer) takes an object of this shape without
 * importing this package: the service passes its LogClient in.
 */
import type { Admin, Kafka } from "kafkajs";
import type { Logger } from "@ladder/platform/logger";
import { createKafka, createTopic, topicConfigs, topicOffsets } from "./kafka.js";
import { connectFailure, type KafkaSecurity } from "./kafka-security.js";
import { consumePartitions, type ConsumeOptions, type LogRecord, type PartitionConsumer } from "./partition-consumer.js";
import { connectProducer, type ProducerOptions, type RecordProducer } from "./record-producer.js";
import { readRange, snapshotTopicPartitions } from "./snapshot-topic.js";

export interface ReadRange {
  topic: string;
  partition: number;
  /** First offset to read. */
  from: bigint;
  /** Last offset to read (inclusive), a record that exists. */
  until: bigint;
  /** Each record in offset order; may be async (the read waits). */
  onRecord(record: LogRecord): Promise<void> | void;
  signal?: AbortSignal;
}

export class LogClient {
  /** For @ladder/log's own functions only. */
  readonly kafka: Kafka;
  /** For @ladder/log's own functions only; connected by open(). */
  readonly admin: Admin;
  /**
   * endOffsetsOnce's admin, connected on its first question: a client of its own whose requests and
   * connections kafkajs does not retry, so that a question fails at once while a broker is away and the
   * caller's next one reaches it as soon as it is back (the readiness probe asks every third of a
   * heartbeat TTL; retried with backoff, one question could outlast a broker's restart by many seconds,
   * and the shard's as-of with it).
   */
  private readonly probe: Admin;
  private probeConnected: Promise<void> | undefined;

  private constructor(kafka: Kafka, probe: Admin) {
    this.kafka = kafka;
    this.admin = kafka.admin();
    this.probe = probe;
  }

  /** A client of `brokers` (kafka.ts's settings, `security`'s login and TLS), its admin connected. */
  static async open(brokers: readonly string[], clientId: string, log: Logger, security?: KafkaSecurity): Promise<LogClient> {
    const client = LogClient.unconnected(brokers, clientId, log, security);
    try {
      await client.admin.connect();
    } catch (err) {
      throw connectFailure(err, brokers, security);
    }
    return client;
  }

  /**
   * A LogClient over a kafkajs client built elsewhere (the benchmarks' own); connect() connects its admin.
   * endOffsetsOnce's admin does not retry its calls; the client's own connection retries stay as built.
   */
  static wrap(kafka: Kafka): LogClient {
    return new LogClient(kafka, kafka.admin({ retry: { retries: 0 } }));
  }

  /** A client whose admin is not connected yet (connect() does it). */
  static unconnected(brokers: readonly string[], clientId: string, log: Logger, security?: KafkaSecurity): LogClient {
    return new LogClient(createKafka(brokers, clientId, log, security), createKafka(brokers, clientId, log, security, 0).admin());
  }

  connect(): Promise<void> {
    return this.admin.connect();
  }

  /** Disconnects the admins (consumers and producers are closed by their owners). */
  async close(): Promise<void> {
    const probeConnected = this.probeConnected;
    this.probeConnected = undefined;
    const probeClosed = probeConnected?.then(() => this.probe.disconnect()).catch(() => {}); // never connected: nothing to close
    await Promise.all([this.admin.disconnect(), probeClosed]);
  }

  consume(o: ConsumeOptions): Promise<PartitionConsumer> {
    return consumePartitions(this.kafka, o);
  }

  offsets(topic: string, timeoutMs?: number): Promise<Array<{ partition: number; low: bigint; high: bigint }>> {
    return topicOffsets(this.admin, topic, timeoutMs);
  }

  /** Each partition's high offset, asked once: no retry (for probes that ask again anyway), a failure thrown at once. */
  async endOffsetsOnce(topic: string): Promise<Map<number, bigint>> {
    this.probeConnected ??= this.probe.connect().catch((err: unknown) => {
      this.probeConnected = undefined;
      throw err;
    });
    await this.probeConnected;
    return new Map((await this.probe.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]));
  }

  /** A topic's partitions with their replica counts, and its configuration entries by name. */
  async describeTopic(
    topic: string,
  ): Promise<{ partitions: Array<{ partition: number; replicas: number }>; configs: Map<string, string> }> {
    const meta = await this.admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = meta.topics[0]!.partitions.map((p) => ({ partition: p.partitionId, replicas: p.replicas.length }));
    return { partitions, configs: await topicConfigs(this.admin, topic) };
  }

  /** Creates a topic of the broker's default settings and waits for its leaders; false when it existed. */
  createTopic(topic: string, partitions: number): Promise<boolean> {
    return createTopic(this.admin, { topic, numPartitions: partitions });
  }

  /** Per partition, the next offset `groupId` will read of `topic` (-1: none committed). */
  async committedOffsets(groupId: string, topic: string): Promise<Map<number, bigint>> {
    const [committed] = await this.admin.fetchOffsets({ groupId, topics: [topic] });
    return new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
  }

  /** The cluster's brokers, as "host:port", sorted. */
  async brokers(): Promise<string[]> {
    return (await this.admin.describeCluster()).brokers.map((b) => `${b.host}:${b.port}`).sort();
  }

  async endOffsets(topic: string): Promise<Map<number, bigint>> {
    return new Map((await this.offsets(topic)).map((p) => [p.partition, p.high]));
  }

  partitionsOf(topic: string): Promise<number | undefined> {
    return snapshotTopicPartitions(this.admin, topic);
  }

  readRange(o: ReadRange): Promise<void> {
    return readRange({ ...o, kafka: this.kafka, admin: this.admin });
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.admin.deleteGroups([groupId]);
  }

  producer(o: ProducerOptions = {}): Promise<RecordProducer> {
    return connectProducer(this.kafka, o);
  }
}
