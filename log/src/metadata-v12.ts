/**
 * Kafka's Metadata request and response, version 12, as far as topic ids need them: the request for
 * some topics by name, and each topic's error code and id read out of the response. Pure code, no I/O;
 * topic-ids.ts sends it over kafkajs's own connection.
 *
 * Why by hand: kafkajs (the project's client, 2.2.4, frozen since 2023) speaks Metadata up to v6, and
 * topic ids came with v10 (Kafka 2.8). v12 is the version every broker from Kafka 3.1 on answers,
 * Kafka 4.x included. It is a "flexible" version (KIP-482): arrays and strings carry unsigned-varint
 * lengths plus one, and every structure ends with tagged fields (a varint count, then tag, size and
 * bytes each), which a reader must skip whatever they hold. Its request header is v2, which is
 * kafkajs's v1 header followed by tagged fields, so the body built here starts with that header's
 * empty tagged fields; its response header is v1, whose tagged fields follow the correlation id that
 * kafkajs reads, so the payload read here starts with them.
 *
 *   request  = header tags, topics [topic_id (16 bytes), name, tags], allow_auto_topic_creation (bool),
 *              include_topic_authorized_operations (bool), tags
 *   response = header tags, throttle_time_ms (int32), brokers [node_id, host, port, rack, tags],
 *              cluster_id, controller_id (int32), topics [error_code (int16), name, topic_id (16 bytes),
 *              is_internal, partitions [error_code, partition_index, leader_id, leader_epoch,
 *              replica_nodes [int32], isr_nodes [int32], offline_replicas [int32], tags],
 *              topic_authorized_operations (int32), tags], tags
 *
 * Topic ids are written as UUIDs in hex with dashes (8-4-4-4-12), the form shards record them in.
 */

export const METADATA_API_KEY = 3;
export const METADATA_VERSION = 12;
/** The topic error that means "no such topic". */
export const UNKNOWN_TOPIC_OR_PARTITION = 3;

/** What the response says of one topic. */
export interface TopicMetadata {
  errorCode: number;
  /** The topic id; undefined when the broker gives none (the zero UUID, as for an unknown topic). */
  id: string | undefined;
}

/** The body of a Metadata v12 request (after kafkajs's v1 header) for `topics`, never creating one. */
export function encodeMetadataRequest(topics: readonly string[]): Buffer {
  const parts: Buffer[] = [uvarint(0), uvarint(topics.length + 1)]; // header tags; the topics' compact array
  for (const name of topics) {
    const bytes = Buffer.from(name, "utf8");
    parts.push(Buffer.alloc(16), uvarint(bytes.length + 1), bytes, uvarint(0)); // zero topic id: ask by name
  }
  parts.push(Buffer.from([0, 0]), uvarint(0)); // no auto-creation, no authorized operations; tags
  return Buffer.concat(parts);
}

/** The topics of a Metadata v12 response payload (what follows the correlation id), by name. */
export function decodeMetadataTopics(payload: Buffer): Map<string, TopicMetadata> {
  const r = new Reader(payload);
  r.tags(); // the response header's
  r.skip(4); // throttle_time_ms
  r.array(() => {
    r.skip(4); // node_id
    r.string();
    r.skip(4); // port
    r.string(); // rack
    r.tags();
  });
  r.string(); // cluster_id
  r.skip(4); // controller_id
  const topics = new Map<string, TopicMetadata>();
  r.array(() => {
    const errorCode = r.int16();
    const name = r.string();
    const id = r.uuid();
    r.skip(1); // is_internal
    r.array(() => {
      r.skip(2 + 4 + 4 + 4); // error_code, partition_index, leader_id, leader_epoch
      for (let i = 0; i < 3; i++) r.array(() => r.skip(4)); // replica, isr and offline nodes
      r.tags();
    });
    r.skip(4); // topic_authorized_operations
    r.tags();
    if (name !== null) topics.set(name, { errorCode, id });
  });
  r.tags();
  return topics;
}

function uvarint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v >= 0x80) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** A cursor over a flexible-version payload; reading past its end throws. */
class Reader {
  private at = 0;

  constructor(private readonly buf: Buffer) {}

  skip(n: number): void {
    this.need(n);
    this.at += n;
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.at);
    this.at += 2;
    return v;
  }

  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      this.need(1);
      const b = this.buf[this.at++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    throw new Error("Metadata response: a varint longer than 5 bytes");
  }

  /** A compact nullable string. */
  string(): string | null {
    const n = this.uvarint();
    if (n === 0) return null;
    this.need(n - 1);
    const s = this.buf.toString("utf8", this.at, this.at + n - 1);
    this.at += n - 1;
    return s;
  }

  uuid(): string | undefined {
    this.need(16);
    const hex = this.buf.toString("hex", this.at, this.at + 16);
    this.at += 16;
    if (/^0+$/.test(hex)) return undefined;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A compact array, each element read by `each`; a null array reads as empty. */
  array(each: () => void): void {
    const n = this.uvarint();
    for (let i = 1; i < n; i++) each();
  }

  /** Tagged fields, skipped. */
  tags(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint(); // tag
      this.skip(this.uvarint());
    }
  }

  private need(n: number): void {
    if (this.at + n > this.buf.length)
      throw new Error(`Metadata response: ${n} more bytes needed at byte ${this.at} of ${this.buf.length}`);
  }
}
