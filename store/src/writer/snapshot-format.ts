/**
 * The bytes of a shard snapshot (see snapshot.ts for what a snapshot is and why): the body,
 * its chunks and the manifest, as they are written to the snapshot topic. Pure functions, no
 * I/O.
 *
 *   body      the frozen keys one after the other, each as one or more entries of its name:
 *               u16 name length | name (UTF-8, the key without the shard's key prefix, e.g.
 *               "board:global" or "dedup:7") | i64 absolute expiry in Unix ms (-1: none) |
 *               u32 value length | value (the sorted set's members, below)
 *             A key's entries follow one another and hold distinct members (a hash's field read
 *             twice has one value): the key is the union of their members. Format 3 cuts a key's
 *             value in entries of about ENTRY_BYTES, so neither the writer nor a reader holds a
 *             whole key of millions of members; format 2 wrote each key as one entry, which
 *             readers of format 3 read the same way.
 *   members   a sorted set, member after member in no particular order:
 *               u32 member length | member (its bytes) | f64 score (big-endian IEEE 754)
 *   chunk     one record of the snapshot topic holding a slice of the body, at most
 *             CHUNK_BYTES of it: "LSC1" | u16 header length | header (JSON: snapshot id,
 *             index, count) | the slice. Keyed "<shardId>|<slot>|<index>".
 *   manifest  one record naming a complete snapshot (JSON, below), keyed "<shardId>", written
 *             after every chunk of it was acknowledged.
 *
 * A body is checked end to end by its SHA-256 in the manifest. Format 1 held each key's
 * Redis DUMP serialization instead of its members; readers ignore those manifests (the shard is
 * replayed from the log, or from a newer snapshot).
 */
import { createHash, type Hash } from "node:crypto";
import { fnv1a32 } from "@ladder/model/fnv1a";

/** Body bytes per chunk record: half of Kafka's default message size limit (1 MiB). */
export const CHUNK_BYTES = 512 * 1024;
/** The manifest's format version written; a reader ignores manifests of a format it cannot read (READ_FORMATS). */
export const SNAPSHOT_FORMAT = 3;
/** Formats read: 2 (a key, one entry) and 3 (a key, entries of about ENTRY_BYTES). */
const READ_FORMATS: ReadonlySet<unknown> = new Set([2, 3]);
/** A key's value is cut in entries of about this many bytes (format 3): what a reader holds of a key at once. */
export const ENTRY_BYTES = 4 * 1024 * 1024;
const CHUNK_MAGIC = Buffer.from("LSC1", "latin1");

/** The two alternating sets of chunk keys of a shard: a new snapshot never overwrites the chunks of the latest complete one. */
export type ChunkSlot = "a" | "b";

/** One frozen key. */
export interface SnapshotEntry {
  /** The key without the shard's key prefix ("board:<board>", "dedup:<partition>"). */
  name: string;
  /** When the key expires (Unix ms), -1 for never. */
  expireAtMs: number;
  /** Its members (see "members" above). */
  value: Buffer;
}

/** An entry to encode: its value may come in parts (the members encoding of each page read). */
export interface EntryToEncode {
  name: string;
  expireAtMs: number;
  value: Buffer | readonly Buffer[];
}

/** The byte length of a value given whole or in parts. */
export const valueLength = (value: Buffer | readonly Buffer[]): number =>
  Buffer.isBuffer(value) ? value.length : value.reduce((sum, b) => sum + b.length, 0);

/** How many members a members encoding holds. */
export function countMembers(value: Buffer): number {
  let n = 0;
  for (let at = 0; at < value.length; n++) at += 4 + value.readUInt32BE(at) + 8;
  return n;
}

/** A score as Redis prints it ("3", "1.5e+17", "inf", "-inf"). */
export function parseScore(printed: Buffer): number {
  const text = printed.toString("latin1");
  const n = text === "inf" || text === "+inf" ? Infinity : text === "-inf" ? -Infinity : Number(text);
  if (Number.isNaN(n)) throw new Error(`not a score: ${JSON.stringify(text)}`);
  return n;
}

/** The members encoding of `pairs` (member, printed score, member, printed score, …: a WITHSCORES reply in binary). */
export function encodeMembers(pairs: readonly Buffer[]): Buffer {
  let bytes = 0;
  for (let i = 0; i < pairs.length; i += 2) bytes += 12 + pairs[i]!.length;
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    const member = pairs[i]!;
    at = out.writeUInt32BE(member.length, at);
    at += member.copy(out, at);
    at = out.writeDoubleBE(parseScore(pairs[i + 1]!), at);
  }
  return out;
}

/** `value` (a members encoding) without the members `drop` says yes to. */
export function dropMembers(value: Buffer, drop: (member: Buffer) => boolean): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  let at = 0;
  for (const [member] of membersOf(value)) {
    const end = member.byteOffset - value.byteOffset + member.length + 8;
    if (drop(member)) {
      if (at > from) parts.push(value.subarray(from, at));
      from = end;
    }
    at = end;
  }
  if (at > from) parts.push(value.subarray(from, at));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** The (member, score) pairs of a members encoding, members as views into `value`. */
export function* membersOf(value: Buffer): Generator<[Buffer, number]> {
  let at = 0;
  while (at < value.length) {
    if (at + 4 > value.length) throw new Error("a snapshot's members end inside a member");
    const length = value.readUInt32BE(at);
    const end = at + 4 + length;
    if (end + 8 > value.length) throw new Error("a snapshot's members end inside a member");
    yield [value.subarray(at + 4, end), value.readDoubleBE(end)];
    at = end + 8;
  }
}

/** A complete snapshot of one shard, as the manifest record describes it. */
export interface SnapshotManifest {
  format: number;
  shardId: string;
  /** Unique per snapshot: "<taken at ms>-<random>". */
  snapshotId: string;
  /** The shard's built-from value (identity.ts) when it was taken: stamp and the score topic's id. */
  builtFrom: string;
  takenAtMs: number;
  /** The last applied offset of each of the shard's partitions (-1: none), as of the snapshot. */
  offsets: Record<string, string>;
  /** Records of the score log the snapshot stands for: the sum over the partitions of offset + 1. */
  records: number;
  /** Members over all boards. */
  players: number;
  /** Keys in the body (boards and dedup sets). */
  keys: number;
  /** Body bytes, and their SHA-256 (hex). */
  bytes: number;
  sha256: string;
  /** Where the chunks are: partition of the snapshot topic, first and last record offsets, how many. */
  chunks: { slot: ChunkSlot; partition: number; count: number; firstOffset: string; lastOffset: string };
}

export const manifestKey = (shardId: string) => shardId;
export const chunkKey = (shardId: string, slot: ChunkSlot, index: number) => `${shardId}|${slot}|${index}`;

/** The partitions of the snapshot topic: 0 holds the manifests, 1..n-1 the chunks, a shard's on one of them. */
export function chunkPartition(shardId: string, partitions: number): number {
  if (partitions < 2) throw new Error(`a snapshot topic needs at least 2 partitions, has ${partitions}`);
  return 1 + (fnv1a32(shardId) % (partitions - 1));
}

/** The offsets of a manifest as a map (partition → last applied offset). */
export function manifestOffsets(m: SnapshotManifest): Map<number, bigint> {
  return new Map(Object.entries(m.offsets).map(([p, o]) => [Number(p), BigInt(o)]));
}

/** The bytes of an entry's head (name length, name, expiry, value length). */
export const entryHeadBytes = (name: string): number => 2 + Buffer.byteLength(name, "utf8") + 12;

/** Encodes entries into a body cut in chunks of `chunkBytes`, entry by entry as they come; `hash` sees every body byte. */
export class BodyEncoder {
  private chunk: Buffer;
  private used = 0;

  constructor(
    private readonly hash: Hash,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    this.chunk = Buffer.allocUnsafe(chunkBytes);
  }

  /** Adds an entry; yields the chunks it fills. */
  *put(e: EntryToEncode): Generator<Buffer> {
    const name = Buffer.from(e.name, "utf8");
    if (name.length > 0xffff) throw new Error(`key name too long for a snapshot: ${e.name.slice(0, 80)}…`);
    const length = valueLength(e.value);
    if (length > 0xffffffff) throw new Error(`key ${e.name} is too large for a snapshot (${length} bytes)`);
    const head = Buffer.allocUnsafe(2 + name.length + 8 + 4);
    head.writeUInt16BE(name.length, 0);
    name.copy(head, 2);
    head.writeBigInt64BE(BigInt(e.expireAtMs), 2 + name.length);
    head.writeUInt32BE(length, 2 + name.length + 8);
    yield* this.copy(head);
    for (const part of Buffer.isBuffer(e.value) ? [e.value] : e.value) yield* this.copy(part);
  }

  /** The last chunk, partly filled; undefined when the body ended on a chunk's end. */
  end(): Buffer | undefined {
    if (this.used === 0) return undefined;
    const last = this.chunk.subarray(0, this.used);
    this.hash.update(last);
    this.used = 0;
    return last;
  }

  private *copy(bytes: Buffer): Generator<Buffer> {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, this.chunkBytes - this.used);
      bytes.copy(this.chunk, this.used, at, at + n);
      this.used += n;
      at += n;
      if (this.used === this.chunkBytes) {
        this.hash.update(this.chunk);
        yield this.chunk;
        this.chunk = Buffer.allocUnsafe(this.chunkBytes);
        this.used = 0;
      }
    }
  }
}

/** Encodes entries into a body cut in chunks of `chunkBytes`; `hash` sees every body byte. */
export function* encodeBody(entries: Iterable<EntryToEncode>, hash: Hash, chunkBytes = CHUNK_BYTES): Generator<Buffer> {
  const encoder = new BodyEncoder(hash, chunkBytes);
  for (const e of entries) yield* encoder.put(e);
  const last = encoder.end();
  if (last) yield last;
}

/** Decodes a body fed chunk by chunk, in order; each push returns the entries it completed. */
export class BodyDecoder {
  private readonly hash = createHash("sha256");
  private head = Buffer.alloc(0);
  private entry: { name: string; expireAtMs: number; value: Buffer; filled: number } | undefined;
  bytes = 0;

  push(chunk: Buffer): SnapshotEntry[] {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    const done: SnapshotEntry[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.entry) {
        const n = Math.min(chunk.length - at, this.entry.value.length - this.entry.filled);
        chunk.copy(this.entry.value, this.entry.filled, at, at + n);
        this.entry.filled += n;
        at += n;
        if (this.entry.filled === this.entry.value.length) {
          done.push({ name: this.entry.name, expireAtMs: this.entry.expireAtMs, value: this.entry.value });
          this.entry = undefined;
        }
        continue;
      }
      // an entry's head: gather until its name length, then the whole head, is in
      const need = (have: Buffer) => (have.length < 2 ? 2 : 2 + have.readUInt16BE(0) + 12);
      let want = need(this.head);
      while (this.head.length < want && at < chunk.length) {
        const n = Math.min(want - this.head.length, chunk.length - at);
        this.head = Buffer.concat([this.head, chunk.subarray(at, at + n)]);
        at += n;
        want = need(this.head);
      }
      if (this.head.length < want) break;
      const nameLength = this.head.readUInt16BE(0);
      const name = this.head.toString("utf8", 2, 2 + nameLength);
      const expireAtMs = Number(this.head.readBigInt64BE(2 + nameLength));
      const length = this.head.readUInt32BE(2 + nameLength + 8);
      this.head = Buffer.alloc(0);
      this.entry = { name, expireAtMs, value: Buffer.allocUnsafe(length), filled: 0 };
      if (length === 0) {
        done.push({ name, expireAtMs, value: this.entry.value });
        this.entry = undefined;
      }
    }
    return done;
  }

  /** The body's SHA-256 (hex); throws when the body ended inside an entry. */
  finish(): string {
    if (this.entry || this.head.length) throw new Error("the snapshot body ends inside a key");
    return this.hash.digest("hex");
  }
}

export interface ChunkHeader {
  snapshotId: string;
  index: number;
  count: number;
}

export function encodeChunk(header: ChunkHeader, slice: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const head = Buffer.allocUnsafe(4 + 2 + json.length);
  CHUNK_MAGIC.copy(head, 0);
  head.writeUInt16BE(json.length, 4);
  json.copy(head, 6);
  return Buffer.concat([head, slice]);
}

/** The chunk's header and slice, or undefined when `value` is not a chunk record. */
export function decodeChunk(value: Buffer | null): { header: ChunkHeader; slice: Buffer } | undefined {
  if (!value || value.length < 6 || !value.subarray(0, 4).equals(CHUNK_MAGIC)) return undefined;
  const length = value.readUInt16BE(4);
  if (value.length < 6 + length) return undefined;
  try {
    const h = JSON.parse(value.toString("utf8", 6, 6 + length)) as Partial<ChunkHeader>;
    if (typeof h.snapshotId !== "string" || !Number.isInteger(h.index) || !Number.isInteger(h.count)) return undefined;
    return { header: { snapshotId: h.snapshotId, index: h.index!, count: h.count! }, slice: value.subarray(6 + length) };
  } catch {
    return undefined;
  }
}

export const encodeManifest = (m: SnapshotManifest): Buffer => Buffer.from(JSON.stringify(m), "utf8");

/** The manifest in a record's value, or why it is not one this reader can use. */
export function decodeManifest(value: Buffer | null): { manifest: SnapshotManifest } | { problem: string } {
  if (!value) return { problem: "empty record" };
  let m: Partial<SnapshotManifest>;
  try {
    m = JSON.parse(value.toString("utf8")) as Partial<SnapshotManifest>;
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message}` };
  }
  if (!READ_FORMATS.has(m.format)) return { problem: `format ${String(m.format)}, not one of ${[...READ_FORMATS].join(", ")}` };
  const c = m.chunks;
  const ok =
    typeof m.shardId === "string" &&
    typeof m.snapshotId === "string" &&
    typeof m.builtFrom === "string" &&
    typeof m.sha256 === "string" &&
    typeof m.offsets === "object" &&
    m.offsets !== null &&
    Object.values(m.offsets).every((o) => typeof o === "string" && /^-?\d+$/.test(o)) &&
    [m.takenAtMs, m.records, m.players, m.keys, m.bytes].every((n) => Number.isSafeInteger(n)) &&
    typeof c === "object" &&
    c !== null &&
    (c.slot === "a" || c.slot === "b") &&
    Number.isInteger(c.partition) &&
    Number.isInteger(c.count) &&
    /^\d+$/.test(String(c.firstOffset)) &&
    /^\d+$/.test(String(c.lastOffset));
  return ok ? { manifest: m as SnapshotManifest } : { problem: "missing or malformed fields" };
}
