import { describe, expect, it } from "vitest";
import { decodeMetadataTopics, encodeMetadataRequest } from "./metadata-v12.js";

// Byte-level builders written from the protocol's field lists (Kafka's MetadataRequest.json and
// MetadataResponse.json, version 12), independently of the code under test.
const u8 = (...b: number[]) => Buffer.from(b);
const i16 = (v: number) => Buffer.from([(v >> 8) & 0xff, v & 0xff]);
const i32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
function uv(v: number): Buffer {
  const out: number[] = [];
  for (; v >= 128; v = Math.floor(v / 128)) out.push((v % 128) + 128);
  out.push(v);
  return Buffer.from(out);
}
const str = (s: string | null) => (s === null ? uv(0) : Buffer.concat([uv(Buffer.byteLength(s) + 1), Buffer.from(s)]));
const arr = (items: Buffer[]) => Buffer.concat([uv(items.length + 1), ...items]);
const noTags = uv(0);
/** Tagged fields with one tag of `size` bytes, which a reader must skip. */
const someTags = (size: number) => Buffer.concat([uv(1), uv(7), uv(size), Buffer.alloc(size, 0xab)]);

function partition(index: number, tags = noTags): Buffer {
  const nodes = arr([i32(1), i32(2), i32(3)]);
  return Buffer.concat([i16(0), i32(index), i32(1), i32(5), nodes, nodes, arr([]), tags]);
}
function topic(errorCode: number, name: string | null, id: Buffer, partitions: Buffer[], tags = noTags): Buffer {
  return Buffer.concat([i16(errorCode), str(name), id, u8(0), arr(partitions), i32(-2147483648), tags]);
}
function response(topics: Buffer[], { headerTags = noTags, tail = noTags } = {}): Buffer {
  const brokers = arr([
    Buffer.concat([i32(1), str("kafka-1.example"), i32(9092), str(null), noTags]),
    Buffer.concat([i32(2), str("kafka-2.example"), i32(9092), str("rack-b"), someTags(3)]),
  ]);
  return Buffer.concat([headerTags, i32(0), brokers, str("cluster-Zx9"), i32(1), arr(topics), tail]);
}
const ID = Buffer.from("0123456789abcdeffedcba9876543210", "hex");

describe("Metadata v12", () => {
  it("asks for topics by name with the zero id, creating none, after the request header's empty tags", () => {
    const body = encodeMetadataRequest(["ladder.scores"]);
    const expected = Buffer.concat([noTags, arr([Buffer.concat([Buffer.alloc(16), str("ladder.scores"), noTags])]), u8(0), u8(0), noTags]);
    expect(body.toString("hex")).toBe(expected.toString("hex"));
  });

  it("reads each topic's error code and id (hex with dashes), skipping brokers, partitions and tagged fields", () => {
    const parts = Array.from({ length: 200 }, (_, i) => partition(i, i === 7 ? someTags(300) : noTags)); // > 127: two-byte lengths
    const payload = response(
      [
        topic(0, "ladder.scores", ID, parts, someTags(2)),
        topic(3, "gone", Buffer.alloc(16), []),
        topic(29, "secret", Buffer.alloc(16), []),
      ],
      { headerTags: someTags(1), tail: someTags(4) },
    );
    const topics = decodeMetadataTopics(payload);
    expect([...topics]).toEqual([
      ["ladder.scores", { errorCode: 0, id: "01234567-89ab-cdef-fedc-ba9876543210" }],
      ["gone", { errorCode: 3, id: undefined }],
      ["secret", { errorCode: 29, id: undefined }],
    ]);
  });

  it("refuses a truncated response, naming where it ends", () => {
    const payload = response([topic(0, "ladder.scores", ID, [partition(0)])]);
    expect(() => decodeMetadataTopics(payload.subarray(0, payload.length - 30))).toThrow(/more bytes needed at byte \d+ of \d+/);
  });
});
