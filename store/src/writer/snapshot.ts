/**
 * Snapshots: a rebuild, or a shard whose Redis lost its data, starts from a recent copy of the
 * shard and replays only the log after it, so its time is bounded by the number of players,
 * not by the length of the history.
 *
 * What. A snapshot is everything a shard's Redis holds that the log made: every board, every
 * dedup set (the event ids applied within the dedup window, per partition: without them a
 * retry after the snapshot, of an update applied before it, would count twice in the replayed
 * tail), the counts of records per player (a hash, read by HSCAN, kept as members and scores), the applied offset of each partition, and the built-from value (identity.ts) — all as
 * of ONE atomic point for the whole shard. Heartbeat, rebuild lease and audit views are not in
 * it: they are not the log's state.
 *
 * Where. In Kafka, the cluster's only durable store (Redis is a view; its RDB or AOF lives on
 * the Redis host and is lost with it): the compacted topic "<score topic>.snapshots"
 * (snapshot-topic.ts). Each snapshot is a body (its keys, each as its members and scores
 * with its absolute expiry: snapshot-format.ts) cut in chunks of 512 KiB, half of Kafka's
 * default message limit, then a manifest naming it: snapshot id, offsets, built-from, chunk
 * count and location, the body's size and SHA-256. Chunk keys alternate between two slots per
 * shard ("<shard>|a|<i>", "<shard>|b|<i>") and the manifest ("<shard>") is written only once
 * every chunk is acknowledged: a snapshot being written never overwrites the chunks of the
 * latest complete one, so a node that dies while writing leaves the previous snapshot usable,
 * and compaction drops the chunks of the one before.
 *
 * Taking one (the shard node, only while it serves: its Redis is then complete up to its
 * offsets; snapshot scheduling is in shard-node/src/snapshots.ts), without stopping the
 * applier and without blocking Redis for more than a page:
 *   1. begin (snapshot-begin.lua, atomic): a flag tells the apply script to record every board
 *      and dedup member it adds, changes or removes in a journal set, and the board and dedup
 *      keys are listed with their expiries;
 *   2. pages (snapshot-page.lua): each listed key is read PAGE members at a time, each page
 *      starting after the (score, member) position where the previous one ended. A member that
 *      does not change keeps its position, so it lands in exactly one page however the others
 *      move; the pages go to a spill file as they are read (page-spill.ts: the node holds a page,
 *      not the shard), in the members encoding (snapshot-format.ts, about 12 bytes per member plus
 *      its id);
 *   3. catch up: while the journal holds more than 4,096 members (a long read of a busy shard
 *      collects hundreds of thousands: every applied update and every dedup entry added or
 *      trimmed), it is set aside in one atomic call (snapshot-rotate.lua: a new, empty journal
 *      takes its place) and its members' current scores are read page by page
 *      (snapshot-resolve.lua), at most 8 times. A member read there and changed again later is
 *      in the new journal;
 *   4. finish (snapshot-finish.lua, atomic): the offsets, built-from, the keys as they are now
 *      with their expiries, and the current score (or absence) of every member in the (short)
 *      journal; the journal stops.
 * The snapshot is the state at the finish: a member never journaled was the same from the
 * begin to the finish, so its page is right; a journaled one is taken from the last read of it,
 * after which it did not change (else it would be in a later journal) — the finish's, or the
 * catch-up's. The soak found why step 3 exists: without it, a finish resolving the journal of a
 * read that lasted seconds under load (1.6M dedup entries per shard at 8,000 updates/s) held
 * Redis for 4.8 s. A key
 * that appeared after the begin was wholly journaled (so the begin lists the keys in the same
 * atomic step that starts the journal); one that went is left out. A key whose expiry changed
 * (it expired and a record made it again, mid-read) or a finish that finds the journal gone (a
 * rebuild swapped the database, the flag expired) makes the snapshot start again, at most 3
 * times. Each step holds Redis for one script call (a page of 4,096 members: about a
 * millisecond); the finish is proportional to the members changed since the last catch-up. Measured in
 * loadtest/results/snapshot-bench.md. Earlier designs: one MULTI/EXEC of DUMPs blocked Redis for
 * 0.4 s per million players, reads included (the soak saw reads refused behind it); COPY into a
 * scratch database blocks longer (1.8 s per million); pausing the applier while reading keeps
 * Redis free but delays every update by the read's length.
 *
 * Which one is used. A reader scans the manifest partition and keeps the manifests of its shard
 * whose built-from equals its own (the same stamp, so the same topic, slots and board specs, and
 * the same Kafka topic id): a snapshot of a score topic that was deleted and created again, or
 * of another configuration, is never loaded (it is logged as ignored). The newest is tried
 * first, then older ones still in the partition; a snapshot is used only when every chunk is
 * there in order, carries its snapshot id, and the body's SHA-256 matches. Otherwise nothing is
 * loaded and the shard is replayed from offset 0, as without snapshots.
 *
 * Loading one. The snapshot is the state after applying the log up to its offsets, so loading it
 * and replaying the records after them through the apply loop gives the state a full replay
 * gives (dedup decisions included: they depend only on the records and the dedup sets).
 *   - a rebuild (swap mode, rebuild.ts) RESTOREs the keys into the spare database it fills,
 *     sets the offsets, and replays from there; readers keep the old board until the SWAPDB.
 *   - a shard node whose Redis is empty at start, or lost its data (readiness.ts, LOST), or is
 *     behind the snapshot by more records than the snapshot has players, RESTOREs the keys
 *     under a temporary prefix of the live database while the live data stays as it is, then
 *     makes them live in one atomic script (snapshot-install.lua: RENAMEs, offsets, built-from)
 *     only if that moves no partition backwards; its applier is paused meanwhile and then
 *     fetches from the snapshot's offsets. The shard refuses reads throughout: the node's
 *     catch-up rule (serve only once at the log's end as of when catching up began) holds for
 *     the loaded state plus the tail as for a replay.
 *   - a reshard's gaining shard loads only the gained slots' part of each old owner's snapshot
 *     (move-seed.ts), read through readSnapshot as here, and replays the log after it.
 *   - audit views always replay from offset 0: a snapshot holds the present, not the past.
 *
 * Loading writes the members back with ZADD (a hash's fields with HSET; a page at a time, pipelined) and sets the key's
 * expiry as the absolute time it was. Scores go as doubles, so a loaded set is the same set
 * bit for bit; the members encoding does not depend on Redis's version or encodings.
 *
 * Limits. The journal lives in the shard's Redis while a snapshot is read: one set member per
 * change (a player changed twice counts once), and in the node's memory from its first rotation
 * until the snapshot is written. The pages take the body's size in the spill file's directory; the
 * node holds a page while reading and an entry (about ENTRY_BYTES) while writing, a loader an entry.
 */
import { createHash, randomBytes } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Redis } from "ioredis";
import type { Logger } from "@ladder/platform/logger";
import { explainMismatch } from "../identity.js";
import { keyLayout, snapshotLoadPrefix } from "../keys.js";
import { InstallStatus, withSnapshotScripts } from "../scripts.js";
import { globEscape, unlinkPrefix } from "./key-scan.js";
import { PageSpill, type PageRef } from "./page-spill.js";
import {
  BodyDecoder,
  BodyEncoder,
  CHUNK_BYTES,
  ENTRY_BYTES,
  SNAPSHOT_FORMAT,
  chunkKey,
  chunkPartition,
  countMembers,
  decodeChunk,
  decodeManifest,
  dropMembers,
  encodeChunk,
  encodeManifest,
  encodeMembers,
  entryHeadBytes,
  manifestKey,
  manifestOffsets,
  membersOf,
  type ChunkSlot,
  type SnapshotEntry,
  type SnapshotManifest,
} from "./snapshot-format.js";
import type { SnapshotLog, SnapshotWriter } from "./log-port.js";

/** A snapshot could not be used (missing or overwritten chunks, wrong checksum): replay instead. */
export class SnapshotUnusable extends Error {
  override readonly name = "SnapshotUnusable";
}

/** Where snapshots are: the log (the service's @ladder/log LogClient), and the snapshot topic. */
export interface SnapshotSource {
  logClient: SnapshotLog;
  topic: string;
}

// ---------------------------------------------------------------------------------------------
// Taking a snapshot

export interface TakeSnapshotOptions {
  /** The shard's live database. */
  redis: Redis;
  keyPrefix: string;
  shardId: string;
  builtFrom: string;
  slots: readonly number[];
  producer: SnapshotWriter;
  topic: string;
  /** Partitions of the snapshot topic. */
  partitions: number;
  /** The chunk slot to write: not the latest complete snapshot's. */
  slot: ChunkSlot;
  /** Chunks the slot held before (its last snapshot's count): those past this one's count are deleted (tombstones). */
  staleChunks?: number;
  /** Skip unless every partition has applied at least this much (the previous snapshot's offsets). */
  notBefore?: ReadonlyMap<number, bigint>;
  /** Set the journal aside until it holds at most this many members (default 4,096; see the top of this file). */
  finalJournal?: number;
  /** Where the pages read wait for the finish (page-spill.ts): the system's temporary directory by default. */
  spillDir?: string;
  /** A key's value is cut in entries of about this many bytes (default ENTRY_BYTES; tests cut small keys too). */
  entryBytes?: number;
  signal?: AbortSignal;
}

export interface TakenSnapshot {
  manifest: SnapshotManifest;
  /** How long reading the shard took (Redis serving meanwhile), and how long writing to Kafka took. */
  readMs: number;
  publishMs: number;
  /** The longest single script call of the read (Redis is held for each one), and the finish's (see the top of this file). */
  longestCallMs: number;
  finishMs: number;
  /** Journal members re-read (set aside and at the finish), times the journal was set aside, attempts the read took. */
  journaled: number;
  rotations: number;
  attempts: number;
}

/** Takes a snapshot of the shard and writes it to the snapshot topic; or says why it did not. */
export async function takeSnapshot(o: TakeSnapshotOptions): Promise<TakenSnapshot | { skipped: string }> {
  let frozen: Frozen;
  try {
    frozen = await readShard(o.redis, o.keyPrefix, o);
  } catch (err) {
    if (err instanceof ShardMoving)
      return { skipped: "the shard's slots are moving (AdminService.Reshard): no snapshot until the move is done" };
    throw err;
  }
  try {
    return await publish(o, frozen);
  } finally {
    await frozen.spill.close();
  }
}

/** Writes the frozen shard to the snapshot topic: its chunks, then its manifest; or says why not. */
async function publish(o: TakeSnapshotOptions, frozen: Frozen): Promise<TakenSnapshot | { skipped: string }> {
  if (frozen.builtFrom !== o.builtFrom)
    return { skipped: `the shard's Redis is built from "${frozen.builtFrom ?? "nothing"}", not "${o.builtFrom}"` };
  const offsets: Record<string, string> = {};
  let records = 0;
  for (const p of o.slots) {
    const offset = BigInt(frozen.offsets[String(p)] ?? "-1");
    if (offset < (o.notBefore?.get(p) ?? -1n))
      return { skipped: `partition ${p} is at offset ${offset}, behind the latest snapshot (${o.notBefore!.get(p)})` };
    offsets[String(p)] = offset.toString();
    records += Number(offset + 1n);
  }
  if (records === 0) return { skipped: "nothing applied yet" };
  o.signal?.throwIfAborted();

  const snapshotId = `${Date.now()}-${randomBytes(4).toString("hex")}`;
  const bytes = frozen.entries.reduce((sum, e) => sum + entryHeadBytes(e.name) + e.length, 0);
  const count = Math.ceil(bytes / CHUNK_BYTES);
  const partition = chunkPartition(o.shardId, o.partitions);
  const hash = createHash("sha256");
  const publishStart = performance.now();
  let firstOffset = "0";
  let lastOffset = "0";
  let index = 0;
  const send = async (slice: Buffer) => {
    o.signal?.throwIfAborted();
    const [meta] = await o.producer.send(o.topic, [
      { key: chunkKey(o.shardId, o.slot, index), value: encodeChunk({ snapshotId, index, count }, slice), partition },
    ]);
    if (index === 0) firstOffset = meta!.baseOffset;
    lastOffset = meta!.baseOffset;
    index++;
  };
  // entry by entry from the spill file: the node holds an entry (about ENTRY_BYTES) and a chunk
  const encoder = new BodyEncoder(hash);
  for (const e of frozen.entries) {
    const value: Buffer[] = [];
    for (const part of e.parts) value.push("now" in part ? part.now : await keptPage(frozen.spill, part, e.changed));
    for (const chunk of encoder.put({ name: e.name, expireAtMs: e.expireAtMs, value })) await send(chunk);
  }
  const last = encoder.end();
  if (last) await send(last);
  if (index !== count) throw new Error(`snapshot ${snapshotId}: wrote ${index} chunks, expected ${count}`);
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    shardId: o.shardId,
    snapshotId,
    builtFrom: o.builtFrom,
    takenAtMs: Date.now(),
    offsets,
    records,
    players: frozen.players,
    keys: frozen.keys,
    bytes,
    sha256: hash.digest("hex"),
    chunks: { slot: o.slot, partition, count, firstOffset, lastOffset },
  };
  o.signal?.throwIfAborted();
  await o.producer.send(o.topic, [{ key: manifestKey(o.shardId), value: encodeManifest(manifest), partition: 0 }]);
  if ((o.staleChunks ?? 0) > count) {
    const stale = Array.from({ length: o.staleChunks! - count }, (_, i) => ({
      key: chunkKey(o.shardId, o.slot, count + i),
      value: null,
      partition,
    }));
    await o.producer.send(o.topic, stale);
  }
  const publishMs = performance.now() - publishStart;
  return {
    manifest,
    readMs: frozen.readMs,
    publishMs,
    longestCallMs: frozen.longestCallMs,
    finishMs: frozen.finishMs,
    journaled: frozen.journaled,
    rotations: frozen.rotations,
    attempts: frozen.attempts,
  };
}

/** A page read at the snapshot's begin, without the members changed since (they come from the journal): read back from the spill file. */
async function keptPage(
  spill: PageSpill,
  part: { ref: PageRef; length: number },
  changed: ReadonlyMap<string, unknown> | undefined,
): Promise<Buffer> {
  const page = await spill.read(part.ref);
  const kept = changed ? withoutChanged(page, changed) : page;
  if (kept.length !== part.length)
    throw new Error(`snapshot: a page read back from the spill file keeps ${kept.length} bytes, ${part.length} when first counted`);
  return kept;
}

/** A page less its key's members changed since the begin (member bytes as latin1): counted when frozen, written when published. */
const withoutChanged = (page: Buffer, changed: ReadonlyMap<string, unknown>): Buffer =>
  dropMembers(page, (m) => changed.has(m.toString("latin1")));

/**
 * One entry of the body (a key's members, or a part of them): pages read at the begin less the
 * members changed since, or the changed members' values as last read.
 */
interface FrozenEntry {
  name: string;
  expireAtMs: number;
  /** The value's bytes. */
  length: number;
  parts: Array<{ ref: PageRef; length: number } | { now: Buffer }>;
  /** The key's members changed since the begin (member bytes as latin1), dropped from its pages. */
  changed?: ReadonlyMap<string, unknown>;
}

interface Frozen {
  builtFrom: string | null;
  offsets: Record<string, string>;
  /** The body's entries, in order; their pages are in `spill`, which the caller closes. */
  entries: FrozenEntry[];
  spill: PageSpill;
  /** Keys, and members over all boards. */
  keys: number;
  players: number;
  readMs: number;
  longestCallMs: number;
  finishMs: number;
  journaled: number;
  rotations: number;
  attempts: number;
}

/** Members per page (snapshot-page.lua, snapshot-resolve.lua). */
const PAGE = 4096;
/** Hashes whose first page one round trip asks for (readHashes). */
const HASH_BATCH = 256;
/** The journal is set aside and resolved until it holds at most this many members (or ROTATIONS times); the finish resolves the rest. */
const FINAL_JOURNAL = 4096;
const ROTATIONS = 8;
/** Time to live of the journal and its flag: longer than any read of a shard takes. */
const JOURNAL_TTL_MS = 30 * 60_000;
const ATTEMPTS = 3;

const JOURNAL_STOPPED = "the journal was stopped while reading (a rebuild swapped the database, or the read outlasted the journal)";

/** Why a read must start again. */
class ReadAgain extends Error {}
/** The shard's slots are moving in place (move.ts): no snapshot until the move is done. */
class ShardMoving extends Error {}

/** Reads the shard as of one instant, page by page, while records are applied (see the top of this file). */
async function readShard(
  plain: Redis,
  keyPrefix: string,
  { signal, finalJournal = FINAL_JOURNAL, spillDir, entryBytes = ENTRY_BYTES }: Partial<TakeSnapshotOptions>,
): Promise<Frozen> {
  const redis = withSnapshotScripts(plain);
  const keys = keyLayout(keyPrefix);
  const pattern = globEscape(keyPrefix);
  let why = "";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const id = randomBytes(8).toString("hex");
    const started = performance.now();
    const spill = await PageSpill.open(spillDir);
    let longestCallMs = 0;
    const timed = async <T>(call: Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const out = await call;
      longestCallMs = Math.max(longestCallMs, performance.now() - t0);
      return out;
    };
    try {
      const listed = await timed(
        redis.ladderSnapshotBegin(keys.snapshotReading, keys.snapshotJournal, keys.move, id, JOURNAL_TTL_MS, pattern),
      );
      if (listed[0] === "!moving") throw new ShardMoving();
      const atBegin = new Map<string, number>();
      for (let i = 0; i < listed.length; i += 2) atBegin.set(String(listed[i]), Number(listed[i + 1]));
      const pages = new Map<string, PageRef[]>();
      const hashPages = await readHashes([...atBegin.keys()].filter((key) => isHash(key.slice(keyPrefix.length))));
      for (const key of atBegin.keys()) {
        if (isHash(key.slice(keyPrefix.length))) {
          pages.set(key, hashPages.get(key)!);
          continue;
        }
        const read: PageRef[] = [];
        let after: [Buffer | string, Buffer | string] = ["", ""];
        for (;;) {
          signal?.throwIfAborted();
          const reply = await timed(redis.ladderSnapshotPageBuffer(key, after[0], after[1], PAGE));
          if (reply.length) read.push(await spill.append(encodeMembers(reply), reply.length / 2));
          if (reply.length < PAGE * 2) break;
          after = [reply[reply.length - 1]!, reply[reply.length - 2]!];
        }
        pages.set(key, read);
      }
      // the hashes (the counts of records) by HSCAN, page by page as a sorted set's: every field
      // there from the begin to the end is returned at least once, with its value; one that changed
      // meanwhile is journaled, and its pages' copies give way to the journal's value. A field
      // returned twice (HSCAN may, while the hash grows) had one value both times: loaded twice, it
      // makes the same hash. They are thousands of small hashes (apply-records.lua), each answered
      // whole by its first HSCAN (a listpack's): HASH_BATCH first pages go in one pipeline, one round
      // trip, and only a hash that has more is read on alone
      async function readHashes(hashKeys: readonly string[]): Promise<Map<string, PageRef[]>> {
        const out = new Map<string, PageRef[]>();
        for (let i = 0; i < hashKeys.length; i += HASH_BATCH) {
          signal?.throwIfAborted();
          const group = hashKeys.slice(i, i + HASH_BATCH);
          const batch = redis.pipeline();
          for (const key of group) batch.hscanBuffer(key, "0", "COUNT", PAGE);
          const replies = await timed(batch.exec());
          for (const [j, key] of group.entries()) {
            const [err, reply] = replies![j]!;
            if (err) throw err;
            let [next, flat] = reply as [Buffer, Buffer[]];
            const read: PageRef[] = [];
            for (;;) {
              if (flat.length) read.push(await spill.append(encodeMembers(flat), flat.length / 2));
              if (next.toString() === "0") break;
              signal?.throwIfAborted();
              [next, flat] = await timed(redis.hscanBuffer(key, next.toString(), "COUNT", PAGE));
            }
            out.set(key, read);
          }
        }
        return out;
      }
      // the members changed since the begin, by key (member bytes as latin1 strings), with their score when last read
      const changed = new Map<string, Map<string, Buffer | null>>();
      let journaled = 0;
      const note = (triples: Array<Buffer | null>) => {
        journaled += triples.length / 3;
        for (let i = 0; i < triples.length; i += 3) {
          const key = (triples[i] as Buffer).toString("utf8");
          let of = changed.get(key);
          if (!of) changed.set(key, (of = new Map()));
          of.set((triples[i + 1] as Buffer).toString("latin1"), triples[i + 2] ?? null);
        }
      };
      // set the journal aside and resolve it at leisure while it is long, so the finish stays short
      let rotations = 0;
      for (let round = 0; round < ROTATIONS; round++) {
        rotations++;
        const [status, size] = await timed(
          redis.ladderSnapshotRotate(keys.snapshotReading, keys.snapshotJournal, keys.snapshotJournalSetAside, id),
        );
        if (status !== 0) throw new ReadAgain(JOURNAL_STOPPED);
        let cursor = "0";
        do {
          signal?.throwIfAborted();
          const [next, triples] = await timed(redis.ladderSnapshotResolveBuffer(keys.snapshotJournalSetAside, cursor, PAGE));
          note(triples);
          cursor = next.toString();
        } while (cursor !== "0");
        await redis.unlink(keys.snapshotJournalSetAside);
        if ((size ?? 0) <= finalJournal) break;
      }
      const t0 = performance.now();
      const reply = await redis.ladderSnapshotFinishBuffer(
        keys.snapshotReading,
        keys.snapshotJournal,
        keys.offsets,
        keys.builtFrom,
        id,
        pattern,
      );
      const finishMs = performance.now() - t0;
      longestCallMs = Math.max(longestCallMs, finishMs);
      if (reply[0] !== 0 || reply.length < 5) throw new ReadAgain(JOURNAL_STOPPED);
      const [, built, offsetPairs, keyPairs, changedTriples] = reply as [
        number,
        Buffer | null,
        Buffer[],
        Array<Buffer | number>,
        Array<Buffer | null>,
      ];
      note(changedTriples);
      // each key's pages less its changed members, counted page by page from the spill file and cut
      // in entries of about ENTRY_BYTES, giving the event loop back between pages: the node applies
      // and beats its heartbeat meanwhile
      const entries: FrozenEntry[] = [];
      let players = 0;
      let keyCount = 0;
      const names = [];
      for (let i = 0; i < keyPairs.length; i += 2) names.push([keyPairs[i]!.toString(), Number(keyPairs[i + 1])] as const);
      names.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
      for (const [key, expireAt] of names) {
        const before = atBegin.get(key);
        if (before !== undefined && before !== expireAt)
          throw new ReadAgain(`${key} expired and was made again while the snapshot read it`);
        const journal = changed.get(key);
        const name = key.slice(keyPrefix.length);
        const expireAtMs = expireAt > 0 ? expireAt : -1;
        const cut: FrozenEntry[] = [];
        const entry = (): FrozenEntry => {
          let e = cut[cut.length - 1];
          if (!e || e.length >= entryBytes)
            cut.push((e = { name, expireAtMs, length: 0, parts: [], ...(journal ? { changed: journal } : {}) }));
          return e;
        };
        let members = 0;
        // read at the begin and never changed since (a key made after the begin has no pages: every member of it is journaled)
        for (const ref of pages.get(key) ?? []) {
          let length = ref.length;
          if (journal) {
            const kept = withoutChanged(await spill.read(ref), journal);
            length = kept.length;
            members += countMembers(kept);
            await nextTurn(); // the applier and the heartbeat run meanwhile
          } else members += ref.members;
          if (length === 0) continue;
          const e = entry();
          e.parts.push({ ref, length });
          e.length += length;
        }
        if (journal) {
          const now: Buffer[] = [];
          for (const [member, score] of journal) if (score !== null) now.push(Buffer.from(member, "latin1"), score);
          if (now.length) {
            const value = encodeMembers(now);
            const e = entry();
            e.parts.push({ now: value });
            e.length += value.length;
            members += now.length / 2;
          }
        }
        if (members === 0) continue; // every member removed: Redis would not hold the key either
        entries.push(...cut);
        keyCount++;
        if (key.startsWith(keys.board(""))) players += members;
        await nextTurn(); // the applier and the heartbeat run meanwhile
      }
      const offsets: Record<string, string> = {};
      for (let i = 0; i < offsetPairs.length; i += 2) offsets[offsetPairs[i]!.toString()] = offsetPairs[i + 1]!.toString();
      return {
        builtFrom: built === null ? null : built.toString(),
        offsets,
        entries,
        spill,
        keys: keyCount,
        players,
        readMs: performance.now() - started,
        longestCallMs,
        finishMs,
        journaled,
        rotations,
        attempts: attempt,
      };
    } catch (err) {
      await spill.close();
      if (!(err instanceof ReadAgain)) {
        await redis.unlink(keys.snapshotReading, keys.snapshotJournal, keys.snapshotJournalSetAside).catch(() => {}); // stop the journal (a newer snapshot would restart it anyway)
        throw err;
      }
      why = err.message;
    }
  }
  throw new Error(`could not read the shard in ${ATTEMPTS} attempts: ${why}`);
}

/**
 * Whether a frozen key (its name without the prefix) is a hash: the counts of records
 * ("count:records:<slot>:<bucket>", apply-records.lua). Their fields and values are kept in the members encoding
 * as members and scores (counts are integers, exact as doubles); every other key is a sorted set.
 */
export const isHash = (name: string) => name.startsWith("count:");

// ---------------------------------------------------------------------------------------------
// Finding and loading one

export interface SnapshotCandidates {
  /** Manifests of this shard built from the reader's built-from value, newest first. */
  candidates: SnapshotManifest[];
  /** Manifests of this shard that were ignored, and why. */
  ignored: string[];
  /** The chunk slot of the newest manifest of this shard, whoever wrote it. */
  newestSlot?: ChunkSlot;
}

/** The usable manifests of `shardId` in the snapshot topic (none when the topic does not exist). */
export async function findSnapshots(
  s: SnapshotSource & { shardId: string; builtFrom: string; signal?: AbortSignal },
): Promise<SnapshotCandidates> {
  const out: SnapshotCandidates = { candidates: [], ignored: [] };
  if ((await s.logClient.partitionsOf(s.topic)) === undefined) return out;
  const { low, high } = (await s.logClient.offsets(s.topic)).find((p) => p.partition === 0)!;
  if (high <= low) return out;
  const key = manifestKey(s.shardId);
  await s.logClient.readRange({
    topic: s.topic,
    partition: 0,
    from: low,
    until: high - 1n,
    signal: s.signal,
    onRecord(m) {
      if (m.key?.toString("utf8") !== key || m.value === null) return;
      const decoded = decodeManifest(m.value);
      if ("problem" in decoded) return void out.ignored.push(`manifest at offset ${m.offset}: ${decoded.problem}`);
      const manifest = decoded.manifest;
      out.newestSlot = manifest.chunks.slot;
      if (manifest.shardId !== s.shardId)
        return void out.ignored.push(`snapshot ${manifest.snapshotId}: of ${manifest.shardId}, not ${s.shardId}`);
      if (manifest.builtFrom !== s.builtFrom)
        return void out.ignored.push(
          `snapshot ${manifest.snapshotId}: built from something else: ${explainMismatch(s.builtFrom, manifest.builtFrom)}`,
        );
      out.candidates.unshift(manifest);
    },
  });
  return out;
}

export interface LoadedSnapshot {
  /** The keys restored (names without prefix), and whether each has an expiry. */
  names: Array<{ name: string; expiring: boolean }>;
  ms: number;
}

/**
 * Reads the snapshot's chunks and RESTOREs its keys under `targetPrefix` on `redis` (replacing
 * keys of the same names). Throws SnapshotUnusable when a chunk is missing or overwritten or
 * the body's checksum differs; the keys restored so far are left for the caller to delete.
 */
export async function loadSnapshot(
  s: SnapshotSource & { manifest: SnapshotManifest; redis: Redis; targetPrefix: string; signal?: AbortSignal },
): Promise<LoadedSnapshot> {
  const started = performance.now();
  const names: LoadedSnapshot["names"] = [];
  const seen = new Set<string>();
  const writer = new MembersWriter(s.redis);
  await readSnapshot(s, async (e) => {
    const key = s.targetPrefix + e.name;
    const hash = isHash(e.name);
    // a key's first entry replaces what the target held under its name; its next ones add to it
    const first = !seen.has(e.name);
    await writer.write(key, memberPages(e.value), { hash, replace: first, expireAtMs: e.expireAtMs });
    if (first) names.push({ name: e.name, expiring: e.expireAtMs >= 0 });
    seen.add(e.name);
  });
  await writer.flush();
  return { names, ms: performance.now() - started };
}

/** A page of a members encoding: members with their scores (a hash's fields with their values). */
export type MemberPage = Array<[Buffer, number]>;

/** Members looked at between two turns of the event loop: a key of millions is not one long block of the process. */
const YIELD_EVERY = 8192;

/** The members of a members encoding that `keep` takes (all without it), PAGE at a time, yielding to the event loop as it goes. */
export async function* memberPages(value: Buffer, keep?: (member: string) => boolean): AsyncGenerator<MemberPage> {
  let page: MemberPage = [];
  let looked = 0;
  for (const [member, score] of membersOf(value)) {
    if (++looked % YIELD_EVERY === 0) await nextTurn();
    if (keep && !keep(member.toString("utf8"))) continue;
    page.push([member, score]);
    if (page.length === PAGE) {
      yield page;
      page = [];
    }
  }
  if (page.length) yield page;
}

/** How a key's members are written (MembersWriter). */
export interface WriteMembersOptions {
  hash: boolean;
  /** Delete the key first. */
  replace: boolean;
  /** An absolute expiry (Unix ms) to set; -1: none. */
  expireAtMs: number;
}

/**
 * Writes keys' members with ZADD (a hash's fields with HSET), one command per page, the commands of
 * consecutive keys in one pipeline: a shard's counts of records are thousands of small hashes
 * (apply-records.lua), and a round trip each would be most of a load's time. A pipeline is sent
 * once it holds 16 pages' worth of members or 256 commands, and by flush(); commands of one
 * connection run in the order sent, so a key written in several calls ends as written at once.
 */
export class MembersWriter {
  private batch: ReturnType<Redis["pipeline"]>;
  private members = 0;

  constructor(private readonly redis: Redis) {
    this.batch = redis.pipeline();
  }

  /** Queues `key`'s pages (sending full pipelines on the way). */
  async write(key: string, pages: AsyncIterable<MemberPage>, o: WriteMembersOptions): Promise<void> {
    if (o.replace) this.batch.del(key);
    for await (const page of pages) {
      if (o.hash) this.batch.hset(key, ...page.flat());
      else this.batch.zadd(key, ...page.flatMap(([member, score]) => [score, member]));
      this.members += page.length;
      if (this.members >= 16 * PAGE || this.batch.length >= 256) await this.flush();
    }
    if (o.expireAtMs >= 0) this.batch.pexpireat(key, o.expireAtMs);
    if (this.batch.length >= 256) await this.flush();
  }

  /** Sends what is queued and waits for it. */
  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = this.redis.pipeline();
    this.members = 0;
    await execAll(batch);
  }
}

/**
 * Reads the snapshot's chunks in order and hands each key to `onEntry`, then checks the body
 * against the manifest. Throws SnapshotUnusable when a chunk is missing or overwritten or the
 * body's checksum or size differs, after the entries read so far were handed over.
 */
export async function readSnapshot(
  s: SnapshotSource & { manifest: SnapshotManifest; signal?: AbortSignal },
  onEntry: (e: SnapshotEntry) => Promise<void>,
): Promise<void> {
  const m = s.manifest;
  const decoder = new BodyDecoder();
  let next = 0;
  if (m.chunks.count > 0) {
    await s.logClient.readRange({
      topic: s.topic,
      partition: m.chunks.partition,
      from: BigInt(m.chunks.firstOffset),
      until: BigInt(m.chunks.lastOffset),
      signal: s.signal,
      async onRecord(record) {
        const key = record.key?.toString("utf8") ?? "";
        if (!key.startsWith(`${m.shardId}|${m.chunks.slot}|`)) return; // another shard's, or the other slot's
        const chunk = decodeChunk(record.value);
        if (!chunk || chunk.header.snapshotId !== m.snapshotId)
          throw new SnapshotUnusable(
            `snapshot ${m.snapshotId}: chunk record ${key} at offset ${record.offset} belongs to another snapshot (overwritten)`,
          );
        if (chunk.header.index < next) return; // written twice (a producer retry): the same bytes again
        if (chunk.header.index !== next)
          throw new SnapshotUnusable(`snapshot ${m.snapshotId}: chunk ${next} is missing (overwritten by a later snapshot?)`);
        next++;
        for (const e of decoder.push(chunk.slice)) await onEntry(e);
      },
    });
  }
  if (next !== m.chunks.count) throw new SnapshotUnusable(`snapshot ${m.snapshotId}: found ${next} of its ${m.chunks.count} chunks`);
  let sha: string;
  try {
    sha = decoder.finish();
  } catch (err) {
    throw new SnapshotUnusable(`snapshot ${m.snapshotId}: ${(err as Error).message}`);
  }
  if (sha !== m.sha256 || decoder.bytes !== m.bytes)
    throw new SnapshotUnusable(`snapshot ${m.snapshotId}: its body does not match its manifest (SHA-256 or size)`);
}

// ---------------------------------------------------------------------------------------------
// Refilling a shard node's live database

export interface RefillOptions extends SnapshotSource {
  shardId: string;
  builtFrom: string;
  slots: readonly number[];
  /** The shard's live database. */
  redis: Redis;
  keyPrefix: string;
  log: Logger;
  signal?: AbortSignal;
  /** Candidates already found (findSnapshots); found here when absent. */
  found?: SnapshotCandidates;
  /** Called when a snapshot is about to be loaded (it is ahead enough of what Redis holds). */
  onLoading?(m: SnapshotManifest): void;
}

export type RefillResult = { installed: SnapshotManifest; offsets: Map<number, bigint>; ms: number } | { skipped: string };

/**
 * Why loading snapshot `m` into a Redis that has applied `applied` (per partition of `slots`,
 * -1 for none) is not worth it, or undefined when it is: it must not move any partition
 * backwards, and must be ahead by more records than it has players (loading costs about what
 * replaying that many records does), unless Redis holds nothing at all.
 */
export function notWorthLoading(m: SnapshotManifest, slots: readonly number[], applied: readonly bigint[]): string | undefined {
  const snap = manifestOffsets(m);
  const ahead = slots.findIndex((p, i) => applied[i]! > (snap.get(p) ?? -1n));
  if (ahead >= 0) return `Redis has applied more of partition ${slots[ahead]} than snapshot ${m.snapshotId}`;
  const gain = slots.reduce((sum, p, i) => sum + Number((snap.get(p) ?? -1n) - applied[i]!), 0);
  const empty = applied.every((a) => a < 0n);
  if (gain === 0 || (!empty && gain < m.players))
    return `snapshot ${m.snapshotId} is only ${gain} records ahead of Redis (replaying them is cheaper than loading ${m.players} players)`;
  return undefined;
}

/**
 * Loads the newest usable snapshot into the shard's live database when it is ahead of what
 * the database holds (see the top of this file: when, and how atomically), or says why not.
 * The caller keeps its applier from writing meanwhile, and afterwards fetches each partition
 * from the installed offsets.
 */
export async function refillFromSnapshot(o: RefillOptions): Promise<RefillResult> {
  const started = performance.now();
  const found = o.found ?? (await findSnapshots({ ...o }));
  for (const why of found.ignored) o.log.warn({ shardId: o.shardId }, `snapshot ignored: ${why}`);
  const keys = keyLayout(o.keyPrefix);
  const redis = withSnapshotScripts(o.redis);
  let why = "no snapshot of this shard built from this configuration";
  for (const m of found.candidates) {
    const snap = manifestOffsets(m);
    const notWorth = notWorthLoading(m, o.slots, await appliedOffsets(o.redis, keys.offsets, o.slots));
    if (notWorth) return { skipped: notWorth };
    await unlinkPrefix(o.redis, snapshotLoadPrefix(o.keyPrefix, "")); // what a load interrupted by a crash left
    const temp = snapshotLoadPrefix(o.keyPrefix, m.snapshotId);
    o.onLoading?.(m);
    try {
      const loaded = await loadSnapshot({ ...o, manifest: m, targetPrefix: temp });
      const args: Array<string | number> = [m.builtFrom, o.keyPrefix, globEscape(o.keyPrefix), temp, snap.size];
      for (const [p, offset] of snap) args.push(p, offset.toString());
      args.push(loaded.names.length);
      for (const n of loaded.names) args.push(n.name, n.expiring ? 1 : 0);
      const [status, a, b] = await redis.ladderSnapshotInstall(keys.offsets, keys.builtFrom, ...args);
      switch (Number(status)) {
        case InstallStatus.OK:
          return { installed: m, offsets: snap, ms: performance.now() - started };
        case InstallStatus.DRIFT:
          return { skipped: `the live data is built from "${a}"` };
        case InstallStatus.AHEAD:
          return { skipped: `Redis applied partition ${a} up to ${b} while the snapshot loaded, past the snapshot` };
        default:
          why = `the loaded key ${a} disappeared before it could be installed`;
      }
    } catch (err) {
      if (o.signal?.aborted || !(err instanceof SnapshotUnusable)) throw err;
      why = (err as Error).message;
      o.log.warn({ shardId: o.shardId, snapshot: m.snapshotId, why }, "snapshot not usable; trying an older one, or the log");
    } finally {
      await unlinkPrefix(o.redis, temp).catch(() => {}); // nothing left after an install; the partial load otherwise
    }
  }
  return { skipped: why };
}

/** Runs a pipeline, throwing its first error. */
async function execAll(batch: ReturnType<Redis["pipeline"]>): Promise<void> {
  for (const [err] of (await batch.exec()) ?? []) if (err) throw err;
}

/** The applied offset of each of `slots` in the offsets hash (-1 where none). */
export async function appliedOffsets(redis: Redis, offsetsKey: string, slots: readonly number[]): Promise<bigint[]> {
  return (await redis.hmget(offsetsKey, ...slots.map(String))).map((v) => (v === null ? -1n : BigInt(v)));
}
