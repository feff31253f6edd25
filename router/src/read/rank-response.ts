/**
 * GetRankResponse, GetAroundResponse and GetTopResponse, encoded by hand: the bytes protobuf-es's
 * toBinary writes for the same message, made in a fraction of its time. GetRank is the router's
 * hottest call, and the generic path (a message made by create() from a plain object with five
 * BigInts per entry, then encoded by reflection over its descriptor) cost about 7 µs of the
 * router's CPU per call, a tenth of a rank; this costs well under one; a page of entries pays
 * that per entry. rank-response.test.ts checks the bytes against toBinary's for many values, so a
 * field added to Entry or to these responses in the .proto fails it until it is added here.
 *
 * Wire format (proto3, leaderboard/v1/common.proto and leaderboard.proto): a field is its tag
 * (field number << 3 | wire type) and its value; a scalar equal to its default (0, "") is not
 * written. Varints: 7 bits a byte, low bits first, the top bit set on every byte but the last;
 * a negative int64 is its 64-bit two's complement, 10 bytes. Strings and messages: a varint
 * length, then the bytes.
 */
import { encodeOnce } from "@ladder/platform/grpc-adapter";
import {
  GetAroundResponseSchema,
  GetRankResponseSchema,
  GetTopResponseSchema,
  type GetAroundResponse,
  type GetRankResponse,
  type GetTopResponse,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { toEntry } from "./entries.js";

/** What an Entry holds, as the read path has it (numbers are safe integers). */
export interface EntryFields {
  playerId: string;
  points: number;
  rank: number;
  reachedAtMs: number;
  /** "" when none. */
  metadata: string;
  /** Under a rank mode; absent (or 0) for the unique rank. */
  tiedRank?: number;
  /** On a board with columns: its values (Entry.columns, packed; score is then the first of them). */
  columns?: bigint[];
}

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;

/** A GetRankResponse whose bytes are already made: the gRPC adapter sends them as they are (encodeOnce). */
export function rankResponse(entry: EntryFields, total: number): GetRankResponse {
  const w = new Writer(64 + 3 * (entry.playerId.length + entry.metadata.length) + 11 * (entry.columns?.length ?? 0));
  const entryLength = entrySize(entry);
  w.tag(1, WIRE_BYTES).varint(entryLength);
  const at = w.length;
  writeEntry(w, entry);
  if (w.length - at !== entryLength) throw new Error("rank response: entry size mismatch");
  w.int(2, total);
  // the message itself, as create() would make it, without create()'s walk over the descriptor
  const message: GetRankResponse = {
    $typeName: "leaderboard.v1.GetRankResponse",
    entry: toEntry(entry),
    total: BigInt(total),
  };
  return encodeOnce(GetRankResponseSchema, message, w.bytes());
}

/** A GetAroundResponse of `entries` on a board of `total`, its bytes already made (encodeOnce). */
export function aroundResponse(entries: readonly EntryFields[], total: number): GetAroundResponse {
  const w = pageBytes(entries, total, "", "");
  const message: GetAroundResponse = {
    $typeName: "leaderboard.v1.GetAroundResponse",
    entries: entries.map(toEntry),
    total: BigInt(total),
  };
  return encodeOnce(GetAroundResponseSchema, message, w.bytes());
}

/** A GetTopResponse of `entries` on a board of `total` with its cursors, its bytes already made (encodeOnce). */
export function topPageResponse(
  entries: readonly EntryFields[],
  total: number,
  nextCursor: string,
  previousCursor: string,
): GetTopResponse {
  const w = pageBytes(entries, total, nextCursor, previousCursor);
  const message: GetTopResponse = {
    $typeName: "leaderboard.v1.GetTopResponse",
    entries: entries.map(toEntry),
    total: BigInt(total),
    nextCursor,
    previousCursor,
  };
  return encodeOnce(GetTopResponseSchema, message, w.bytes());
}

/** A page's message: entries = 1, total = 2, next_cursor = 3 and previous_cursor = 4 (GetAround has no cursors: "" writes nothing). */
function pageBytes(entries: readonly EntryFields[], total: number, next: string, previous: string): Writer {
  const sizes = entries.map(entrySize);
  let capacity = 32 + 3 * (next.length + previous.length);
  for (const size of sizes) capacity += 8 + size;
  const w = new Writer(capacity);
  entries.forEach((e, i) => {
    w.tag(1, WIRE_BYTES).varint(sizes[i]!);
    const at = w.length;
    writeEntry(w, e);
    if (w.length - at !== sizes[i]) throw new Error("page response: entry size mismatch");
  });
  return w.int(2, total).string(3, next).string(4, previous);
}

/** An Entry's fields, in field order. */
function writeEntry(w: Writer, e: EntryFields): void {
  w.string(1, e.playerId);
  if (e.columns) w.bigInt(2, e.columns[0]!);
  else w.int(2, e.points);
  w.int(3, e.rank)
    .int(4, e.reachedAtMs)
    .string(5, e.metadata)
    .int(6, e.tiedRank ?? 0);
  if (e.columns?.length) {
    w.tag(7, WIRE_BYTES).varint(packedSize(e.columns));
    for (const v of e.columns) w.bigVarint(v);
  }
}

/** The bytes of an Entry's fields. */
function entrySize(e: EntryFields): number {
  const columns = e.columns?.length ? 1 + varintSize(packedSize(e.columns)) + packedSize(e.columns) : 0;
  return (
    stringSize(e.playerId) +
    (e.columns ? bigIntSize(e.columns[0]!) : intSize(e.points)) +
    intSize(e.rank) +
    intSize(e.reachedAtMs) +
    stringSize(e.metadata) +
    intSize(e.tiedRank ?? 0) +
    columns
  );
}

/** Bytes of packed int64s (their varints, without tag and length). */
function packedSize(vs: readonly bigint[]): number {
  let n = 0;
  for (const v of vs) n += bigVarintSize(v);
  return n;
}

/** Bytes of an int64's varint: a negative one as 64-bit two's complement, 10 bytes. */
function bigVarintSize(v: bigint): number {
  let u = BigInt.asUintN(64, v);
  let size = 1;
  while (u >= 128n) {
    u >>= 7n;
    size++;
  }
  return size;
}

/** Bytes of an int64 field (tag and varint), 0 for 0. */
function bigIntSize(v: bigint): number {
  return v === 0n ? 0 : 1 + bigVarintSize(v);
}

/** Bytes of a string field (tag, length, UTF-8), 0 for "". Field numbers here are below 16: one tag byte. */
function stringSize(s: string): number {
  if (s === "") return 0;
  const n = Buffer.byteLength(s, "utf8");
  return 1 + varintSize(n) + n;
}

/** Bytes of an integer field (tag and varint), 0 for 0. */
function intSize(n: number): number {
  return n === 0 ? 0 : 1 + varintSize(n);
}

function varintSize(n: number): number {
  if (n < 0) return 10;
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

class Writer {
  private readonly buf: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire);
  }

  /** A non-negative safe integer, or a negative one as 64-bit two's complement. */
  varint(n: number): this {
    if (n < 0) {
      let v = BigInt.asUintN(64, BigInt(n));
      for (let i = 0; i < 9; i++) {
        this.buf[this.length++] = Number(v & 0x7fn) | 0x80;
        v >>= 7n;
      }
      this.buf[this.length++] = Number(v);
      return this;
    }
    while (n >= 128) {
      this.buf[this.length++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.length++] = n;
    return this;
  }

  /** An int64 of any size, as 64-bit two's complement. */
  bigVarint(v: bigint): this {
    let u = BigInt.asUintN(64, v);
    while (u >= 128n) {
      this.buf[this.length++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.length++] = Number(u);
    return this;
  }

  bigInt(field: number, v: bigint): this {
    return v === 0n ? this : this.tag(field, WIRE_VARINT).bigVarint(v);
  }

  int(field: number, n: number): this {
    return n === 0 ? this : this.tag(field, WIRE_VARINT).varint(n);
  }

  string(field: number, s: string): this {
    if (s === "") return this;
    const n = Buffer.byteLength(s, "utf8");
    this.tag(field, WIRE_BYTES).varint(n);
    this.length += this.buf.write(s, this.length, "utf8");
    return this;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}
