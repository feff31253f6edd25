import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  BodyDecoder,
  chunkPartition,
  countMembers,
  decodeChunk,
  decodeManifest,
  dropMembers,
  encodeBody,
  encodeChunk,
  encodeManifest,
  encodeMembers,
  membersOf,
  parseScore,
  SNAPSHOT_FORMAT,
  type SnapshotEntry,
  type SnapshotManifest,
} from "./snapshot-format.js";

const entries: SnapshotEntry[] = [
  { name: "board:global", expireAtMs: -1, value: Buffer.from("x".repeat(1000)) },
  { name: "board:daily:ü", expireAtMs: 1_800_000_000_000, value: Buffer.from([1, 2, 3]) },
  { name: "dedup:7", expireAtMs: -1, value: Buffer.alloc(0) },
  { name: "board:big", expireAtMs: -1, value: Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251)) },
];

describe("store > snapshot format", () => {
  it("decodes a body cut in chunks of any size, whatever the chunk boundaries, with the same SHA-256", () => {
    for (const chunkBytes of [1, 2, 3, 7, 64, 1000, 4096, 1 << 20]) {
      const hash = createHash("sha256");
      const chunks = [...encodeBody(entries, hash, chunkBytes)];
      expect(chunks.slice(0, -1).every((c) => c.length === chunkBytes)).toBe(true);
      const decoder = new BodyDecoder();
      const out = chunks.flatMap((c) => decoder.push(c));
      expect(out).toEqual(entries);
      expect(decoder.finish()).toBe(hash.digest("hex"));
    }
  });

  it("refuses a body that ends inside a key", () => {
    const chunks = [...encodeBody(entries, createHash("sha256"), 100)];
    const decoder = new BodyDecoder();
    for (const c of chunks.slice(0, -1)) decoder.push(c);
    expect(() => decoder.finish()).toThrow(/ends inside a key/);
  });

  it("round-trips chunks and tells other records apart", () => {
    const value = encodeChunk({ snapshotId: "s1", index: 3, count: 9 }, Buffer.from("slice"));
    expect(decodeChunk(value)).toEqual({ header: { snapshotId: "s1", index: 3, count: 9 }, slice: Buffer.from("slice") });
    expect(decodeChunk(null)).toBeUndefined();
    expect(decodeChunk(Buffer.from('{"not":"a chunk"}'))).toBeUndefined();
  });

  it("accepts a well-formed manifest of the formats it reads only", () => {
    const m: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      shardId: "shard-1",
      snapshotId: "1-ab",
      builtFrom: "shard-1|topic=t|topic-id=x",
      takenAtMs: 1,
      offsets: { "0": "41", "3": "-1" },
      records: 42,
      players: 10,
      keys: 2,
      bytes: 100,
      sha256: "00",
      chunks: { slot: "a", partition: 3, count: 1, firstOffset: "0", lastOffset: "0" },
    };
    expect(decodeManifest(encodeManifest(m))).toEqual({ manifest: m });
    expect(decodeManifest(encodeManifest({ ...m, format: 2 }))).toEqual({ manifest: { ...m, format: 2 } }); // a key as one entry: read alike
    expect(decodeManifest(encodeManifest({ ...m, format: 1 }))).toEqual({ problem: "format 1, not one of 2, 3" }); // format 1 held DUMPs
    expect(decodeManifest(encodeManifest({ ...m, offsets: { "0": "x" } }))).toEqual({ problem: "missing or malformed fields" });
    expect(decodeManifest(Buffer.from("nope"))).toMatchObject({ problem: expect.stringMatching(/^not JSON/) });
  });

  it("puts a shard's chunks on one partition other than the manifests'", () => {
    for (const id of ["shard-0", "shard-1", "shard-2", "x"]) {
      const p = chunkPartition(id, 16);
      expect(p).toBeGreaterThanOrEqual(1);
      expect(p).toBeLessThan(16);
      expect(chunkPartition(id, 16)).toBe(p);
    }
    expect(() => chunkPartition("shard-0", 1)).toThrow();
  });

  it("encodes sorted set members with their scores as doubles, bit for bit, and drops the ones asked", () => {
    const b = (x: string) => Buffer.from(x, "utf8");
    // a WITHSCORES reply as Redis prints it: integers, a 17-digit double, infinities, an empty member, non-ASCII bytes
    const reply = [b("alice"), b("3"), b(""), b("1.0000000000000002e+17"), b("jöns"), b("-inf"), b("bob"), b("inf"), b("x"), b("-0.5")];
    const decoded = (v: Buffer) => [...membersOf(v)].map(([m, s]) => [m.toString("utf8"), s]);
    const all = encodeMembers(reply);
    expect(decoded(all)).toEqual([
      ["alice", 3],
      ["", 1.0000000000000002e17],
      ["jöns", -Infinity],
      ["bob", Infinity],
      ["x", -0.5],
    ]);
    expect(decoded(dropMembers(all, (m) => m.length === 0))).toEqual([
      ["alice", 3],
      ["jöns", -Infinity],
      ["bob", Infinity],
      ["x", -0.5],
    ]);
    expect(decoded(dropMembers(all, (m) => ["alice", "bob"].includes(m.toString())))).toEqual([
      ["", 1.0000000000000002e17],
      ["jöns", -Infinity],
      ["x", -0.5],
    ]);
    expect(dropMembers(all, () => false)).toEqual(all);
    expect(dropMembers(all, () => true).length).toBe(0);
    expect(() => [...membersOf(all.subarray(0, all.length - 3))]).toThrow(/end inside a member/);
    expect(() => parseScore(b("nan?"))).toThrow(/not a score/);
    expect([countMembers(all), countMembers(dropMembers(all, (m) => m.length === 0)), countMembers(Buffer.alloc(0))]).toEqual([5, 4, 0]);
    // a value given in parts (a page at a time) encodes to the same body as given whole
    const parts = [encodeMembers(reply.slice(0, 4)), encodeMembers(reply.slice(4))];
    const body = (value: Buffer | Buffer[]) =>
      Buffer.concat([...encodeBody([{ name: "board:x", expireAtMs: -1, value }], createHash("sha256"), 7)]);
    expect(body(parts)).toEqual(body(all));
  });
});
