/**
 * TopicIds: the score topic's Kafka topic id (a UUID the broker gives a topic when it is created), or
 * undefined when the topic does not exist. A topic deleted and created again under the same name gets
 * a new id and restarts its offsets at 0: a shard built from the old one must not skip the new one's
 * records as "already applied", so shards record the id they were built from, and the router checks it
 * before a rebuild or a move.
 *
 * kafkajs's public API speaks Metadata v6, which has no topic ids, so this sends a Metadata v12
 * request (metadata-v12.ts) over kafkajs's own broker connection: kafkajs's Broker and ConnectionPool
 * (its internal modules, kafkajs-internals.d.ts; the version is pinned and patched) connect, negotiate
 * API versions and log in with SASL over TLS exactly as the cluster's other Kafka clients do. One
 * connection, opened on the first question and kept; a failed question drops it and asks the next
 * bootstrap broker, a few times with a pause between. A broker older than Kafka 3.1 (no Metadata v12)
 * is refused by name.
 */
import Broker from "kafkajs/src/broker/index.js";
import loggers from "kafkajs/src/loggers/index.js";
import ConnectionPool from "kafkajs/src/network/connectionPool.js";
import socketFactory from "kafkajs/src/network/socketFactory.js";
import Encoder from "kafkajs/src/protocol/encoder.js";
import protocolErrors from "kafkajs/src/protocol/error.js";
import { kafkajsSecurity, type KafkaSecurity } from "./kafka-security.js";
import {
  decodeMetadataTopics,
  encodeMetadataRequest,
  METADATA_API_KEY,
  METADATA_VERSION,
  UNKNOWN_TOPIC_OR_PARTITION,
  type TopicMetadata,
} from "./metadata-v12.js";

/** Questions per idOf before its error is thrown, and the pause after the first failure (doubling). */
const ATTEMPTS = 4;
const FIRST_PAUSE_MS = 200;
const SILENT = loggers.createLogger({ level: loggers.LEVELS.NOTHING, logCreator: () => () => {} });

export class TopicIds {
  private broker: Promise<Broker> | undefined;
  private nextBroker = 0;

  constructor(
    private readonly brokers: readonly string[],
    private readonly clientId: string,
    private readonly security?: KafkaSecurity,
  ) {}

  async idOf(topic: string): Promise<string | undefined> {
    let lastError: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, FIRST_PAUSE_MS * 2 ** (attempt - 1)));
      let found: TopicMetadata | undefined;
      try {
        found = (await this.ask(topic)).get(topic);
      } catch (err) {
        await this.drop();
        if ((err as { retriable?: boolean }).retriable !== true) throw err;
        lastError = err;
        continue;
      }
      if (!found || found.errorCode === UNKNOWN_TOPIC_OR_PARTITION) return undefined;
      if (found.id !== undefined) return found.id; // a partition without a leader yet still has its topic's id
      const err = protocolErrors.createErrorFromCode(found.errorCode);
      if (!err.retriable) throw new Error(`the topic id of ${topic}: ${err.message} (${err.type})`);
      lastError = err;
    }
    throw new Error(`the topic id of ${topic}: ${(lastError as Error).message} (${ATTEMPTS} attempts)`);
  }

  async close(): Promise<void> {
    await this.drop();
  }

  private async ask(topic: string): Promise<Map<string, TopicMetadata>> {
    const broker = await this.connected();
    const body = encodeMetadataRequest([topic]);
    return broker.connectionPool.send({
      request: {
        apiKey: METADATA_API_KEY,
        apiVersion: METADATA_VERSION,
        apiName: "Metadata",
        encode: async () => {
          const encoder = new Encoder();
          encoder.writeBufferInternal(body);
          return encoder;
        },
      },
      response: {
        decode: async (payload: Buffer) => decodeMetadataTopics(payload),
        parse: async (topics: Map<string, TopicMetadata>) => topics,
      },
    });
  }

  private connected(): Promise<Broker> {
    this.broker ??= (async () => {
      const address = this.brokers[this.nextBroker++ % this.brokers.length]!;
      const at = address.lastIndexOf(":");
      const connectionPool = new ConnectionPool({
        host: address.slice(0, at),
        port: Number(address.slice(at + 1)),
        logger: SILENT,
        socketFactory: socketFactory(),
        clientId: this.clientId,
        connectionTimeout: 3_000,
        requestTimeout: 30_000,
        enforceRequestTimeout: true,
        ...kafkajsSecurity(this.security),
      });
      const broker = new Broker({ connectionPool, logger: SILENT, allowAutoTopicCreation: false });
      try {
        await broker.connect();
        const range = broker.versions?.[METADATA_API_KEY];
        if (!range || range.maxVersion < METADATA_VERSION) {
          throw Object.assign(
            new Error(
              `broker ${address} answers Metadata up to v${range?.maxVersion ?? "?"}; topic ids need v${METADATA_VERSION} (Kafka 3.1 or later)`,
            ),
            { retriable: false },
          );
        }
        return broker;
      } catch (err) {
        await broker.disconnect().catch(() => {});
        throw err;
      }
    })();
    return this.broker;
  }

  private async drop(): Promise<void> {
    const broker = this.broker;
    this.broker = undefined;
    if (broker) await (await broker.catch(() => undefined))?.disconnect().catch(() => {});
  }
}
