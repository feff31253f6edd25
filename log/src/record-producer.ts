/**
 * A producer of records to named partitions, in log's own types: snapshot chunks and
 * manifests, board definitions' record to every score partition, and the tests that must write
 * records straight to a topic. Every send waits for acks=all (unless `acks` says otherwise) and
 * answers each partition's base offset.
 *
 * Not the score log's ingest producer (score-producer.ts: group commits, one request in flight
 * by design), though it may be configured the same (`idempotent`, one request in flight).
 */
import { Partitioners, type Kafka, type Producer } from "kafkajs";

/** A record to write: key, value (null = a tombstone), and the partition it goes to (undefined: kafkajs's default partitioner). */
export interface OutgoingRecord {
  key?: string | Buffer | null;
  value: string | Buffer | null;
  partition?: number;
}

export interface ProducerOptions {
  /** Idempotent (a retried request is never written twice); implies one request in flight. */
  idempotent?: boolean;
  /** Requests in flight at once (default 1). */
  maxInFlightRequests?: number;
}

/** Where a send put its records: one entry per partition written, with the batch's first offset. */
export interface Written {
  partition: number;
  baseOffset: string;
}

export interface RecordProducer {
  send(topic: string, records: readonly OutgoingRecord[], opts?: { acks?: -1 | 0 | 1 }): Promise<Written[]>;
  disconnect(): Promise<void>;
}

export async function connectProducer(kafka: Kafka, o: ProducerOptions = {}): Promise<RecordProducer> {
  const producer = kafka.producer({
    allowAutoTopicCreation: false,
    maxInFlightRequests: o.maxInFlightRequests ?? 1,
    createPartitioner: Partitioners.DefaultPartitioner, // named, as kafkajs asks (records without a partition go by key)
    ...(o.idempotent ? { idempotent: true } : {}),
  });
  await producer.connect();
  return wrapProducer(producer);
}

/** log's RecordProducer over a connected kafkajs producer. */
export function wrapProducer(producer: Producer): RecordProducer {
  return {
    async send(topic, records, opts) {
      // kafkajs's send is its sendBatch of one topic; the records are its messages as they are (no copy: ingest's flushes)
      const sent = await producer.send({ topic, acks: opts?.acks ?? -1, messages: records as OutgoingRecord[] });
      return sent.map((m) => ({ partition: m.partition, baseOffset: m.baseOffset ?? m.offset ?? "-1" }));
    },
    disconnect: () => producer.disconnect(),
  };
}
