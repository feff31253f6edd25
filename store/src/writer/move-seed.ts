/**
 * Seeding a shard's gained slots from the snapshots of the shards that held them: a reshard's
 * new shard, or a shard that moves in place (move.ts), loads the players of the slots it gains
 * from their old owner's newest snapshot and replays only the log after it, so a move's time
 * is bounded by the players it moves, not by the length of the history of their partitions.
 *
 * WHAT IS TAKEN. A snapshot is one shard's state as of its offsets (snapshot.ts). Of it, the
 * keys and members of the gained slots (slot-split.ts: by the player, team or board name that
 * keyed the records, or by partition) are exactly what replaying those slots' partitions up to
 * the snapshot's offsets writes, so loading them, setting those partitions' offsets to the
 * snapshot's and replaying after them ends as the replay from offset 0 does. A histogram's counts
 * sum every slot's entries: they are counted again, per board key, from the members seeded.
 *
 * WHEN IT IS NOT. Only a snapshot built from the old owner's current configuration (its stamp in
 * the placement being left, and the topic's id) is used, as a rebuild uses its own shard's. A
 * source is replayed from offset 0 as before, never guessed, when: it has no such snapshot, or
 * none whose chunks are all there with the right checksum (checked by a first read, before
 * anything is written); the snapshot holds a key this split does not know, or a board deletion
 * still in progress (a generation with a deletion marker whose keys are still there: the markers
 * of the other partitions decide when they go); or the gained partitions' records since offset 0
 * are so few that replaying them costs less than reading the old owner's whole snapshot twice
 * (REPLAY_COST).
 *
 * WHILE READERS READ. A move in place loads into the live keys: each page of a board key goes in
 * one MULTI with the same members in "<key>!arr" (which the old placement's readers leave out:
 * read-header.lua) and their histogram counts, so no reader sees a seeded member, nor a count
 * without its member; the rest (metadata, hides, counts of records, event ids, markers) is not
 * read under the old placement. A new shard loads into its spare database, read by nobody.
 * Failing after the first write (a chunk overwritten between the two reads: the old owner wrote
 * two snapshots meanwhile) fails the build, which the reshard undoes as any failed build.
 *
 * COST. Each source's snapshot is read twice from Kafka (checked, then loaded), whole: the old
 * owner's other slots are read and dropped. Redis gets the gained members once, a page (4,096)
 * per MULTI. It runs in the router's process beside its reads: a key of a million members is
 * picked through with a turn of the event loop every 8,192 members, not in one block.
 */
import type { Redis } from "ioredis";
import type { Logger } from "@ladder/platform/logger";
import { Code, LadderError } from "@ladder/model/errors";
import {
  findSnapshots,
  isHash,
  memberPages,
  readSnapshot,
  SnapshotUnusable,
  MembersWriter,
  type MemberPage,
  type SnapshotSource,
} from "./snapshot.js";
import { manifestOffsets, membersOf, type SnapshotManifest } from "./snapshot-format.js";
import { slotPick } from "./slot-split.js";

/** An old owner of gained slots: its id, its built-from value in the placement being left, its slots there, and those this shard gains of them. */
export interface SeedSource {
  shardId: string;
  builtFrom: string;
  ownerSlots: readonly number[];
  slots: readonly number[];
}

export interface SeedOptions extends SnapshotSource {
  sources: readonly SeedSource[];
  /** The target: the live database (a move in place) or the spare one (a new shard). */
  redis: Redis;
  keyPrefix: string;
  offsetsKey: string;
  numSlots: number;
  /** A move in place: board members also go into "<key>!arr", in the same MULTI. */
  mirror: boolean;
  log: Logger;
  signal?: AbortSignal;
}

export interface SeedResult {
  /** The snapshots seeded from. */
  from: Array<{ shardId: string; snapshotId: string; slots: number[]; members: number }>;
  /** Per seeded partition, the last offset the seed stands for: the replay starts after it. */
  startAfter: Map<number, bigint>;
  members: number;
  ms: number;
}

/**
 * A record replayed costs about this many snapshot members read (the apply script's 20–60 µs of
 * Redis per record, docs/performance.md, against about a microsecond to decode and pick a member):
 * a source whose gained partitions hold fewer records than the snapshot's players ÷ this is replayed.
 */
const REPLAY_COST = 20;

/** Seeds what it can of `sources` into the target (above); what it could not is left to the replay from offset 0. */
export async function seedFromSnapshots(o: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const out: SeedResult = { from: [], startAfter: new Map(), members: 0, ms: 0 };
  for (const source of o.sources) {
    const picked = await pickSnapshot(o, source);
    if (!picked) continue;
    const members = await load(o, source, picked.manifest, picked.bounds);
    const offsets = manifestOffsets(picked.manifest);
    const set: string[] = [];
    for (const p of source.slots) {
      const at = offsets.get(p) ?? -1n;
      if (at < 0n) continue;
      out.startAfter.set(p, at);
      set.push(String(p), at.toString());
    }
    if (set.length) await o.redis.hset(o.offsetsKey, ...set);
    out.from.push({ shardId: source.shardId, snapshotId: picked.manifest.snapshotId, slots: [...source.slots], members });
    out.members += members;
    o.log.info(
      { from: source.shardId, snapshot: picked.manifest.snapshotId, slots: source.slots, members },
      "move: gained slots seeded from their old owner's snapshot",
    );
  }
  out.ms = performance.now() - started;
  return out;
}

/** A histogram's bounds: bucket names and first sort keys, in ZRANGE order. */
type Bounds = Array<{ name: Buffer; first: number }>;

/** The newest snapshot of `source` that can seed its slots, checked whole, with the histogram bounds of its board keys; undefined (logged) when none. */
async function pickSnapshot(
  o: SeedOptions,
  source: SeedSource,
): Promise<{ manifest: SnapshotManifest; bounds: Map<string, Bounds> } | undefined> {
  const say = (why: string, snapshot?: string) =>
    o.log.info({ from: source.shardId, slots: source.slots, snapshot, why }, "move: gained slots replayed from offset 0");
  let found;
  try {
    found = await findSnapshots({ ...o, shardId: source.shardId, builtFrom: source.builtFrom, signal: o.signal });
  } catch (err) {
    if (o.signal?.aborted) throw err;
    return void say(`cannot read the snapshot topic: ${(err as Error).message}`);
  }
  if (found.candidates.length === 0) return void say("no snapshot of the old owner built from its configuration");
  const gained = new Set(source.slots);
  for (const manifest of found.candidates) {
    const offsets = manifestOffsets(manifest);
    const records = source.slots.reduce((sum, p) => sum + Number((offsets.get(p) ?? -1n) + 1n), 0);
    if (records * REPLAY_COST < manifest.players)
      return void say(
        `replaying its ${records} records costs less than reading the snapshot's ${manifest.players} players twice`,
        manifest.snapshotId,
      );
    const names = new Set<string>();
    const deleting: string[] = [];
    const boundsRead = new Map<string, Buffer[]>(); // a key's entries, in order
    let unknown: string | undefined;
    try {
      await readSnapshot({ ...o, manifest }, async (e) => {
        names.add(e.name);
        const pick = slotPick(e.name, o.numSlots, gained);
        if ("unknown" in pick) unknown ??= e.name;
        if (e.name === "board:~deleted")
          for (const [m] of membersOf(e.value)) {
            const stem = m.toString("utf8").split("\n")[0]!;
            if (!stem.includes("@")) deleting.push(stem);
          }
        if (e.name.endsWith("!hbounds")) {
          const board = e.name.slice(0, -"!hbounds".length);
          boundsRead.set(board, [...(boundsRead.get(board) ?? []), e.value]);
        }
      });
    } catch (err) {
      if (o.signal?.aborted || !(err instanceof SnapshotUnusable)) throw err;
      o.log.warn(
        { from: source.shardId, snapshot: manifest.snapshotId, why: err.message },
        "move: snapshot not usable; trying an older one",
      );
      continue;
    }
    if (unknown) return void say(`it holds key "${unknown}", of a kind a move cannot split by slot`, manifest.snapshotId);
    const inProgress = deleting.find((stem) => [...names].some((n) => isKeyOf(n, `board:${stem}`)));
    if (inProgress) return void say(`board generation ${inProgress} is being deleted in it`, manifest.snapshotId);
    const bounds = new Map([...boundsRead].map(([board, values]) => [board, boundsOf(Buffer.concat(values))]));
    return { manifest, bounds };
  }
  return void say("no snapshot of the old owner is whole (missing chunks or checksum)");
}

/** Whether `name` is the key `stem` or one of its period, window or companion keys. */
const isKeyOf = (name: string, stem: string) => name === stem || (name.startsWith(stem) && "@~!".includes(name[stem.length]!));

/** Loads the gained slots' part of `manifest` into the target; the members written. */
async function load(o: SeedOptions, source: SeedSource, manifest: SnapshotManifest, bounds: Map<string, Bounds>): Promise<number> {
  const gained = new Set(source.slots);
  let members = 0;
  const writer = new MembersWriter(o.redis); // the keys besides the boards (seedBoard writes those itself)
  try {
    await readSnapshot({ ...o, manifest }, async (e) => {
      const pick = slotPick(e.name, o.numSlots, gained);
      if ("none" in pick || "unknown" in pick) return;
      const pages = memberPages(e.value, "keep" in pick ? pick.keep : undefined);
      const key = o.keyPrefix + e.name;
      const rest = e.name.slice("board:".length);
      if (e.name.startsWith("board:") && !rest.startsWith("~") && !rest.includes("!")) {
        await writer.flush();
        members += await seedBoard(o, key, e.expireAtMs, pages, bounds.get(e.name));
      } else await writer.write(key, pages, { hash: isHash(e.name), replace: false, expireAtMs: e.expireAtMs });
    });
    await writer.flush();
  } catch (err) {
    if (o.signal?.aborted || !(err instanceof SnapshotUnusable)) throw err;
    throw new LadderError(
      Code.ABORTED,
      `seeding slots ${source.slots.join(",")} from snapshot ${manifest.snapshotId} of ${source.shardId} failed after its check: ${err.message}; the reshard can be tried again`,
    );
  }
  return members;
}

/**
 * A board key's seeded members, a page per MULTI: the members, with `mirror` the same in "!arr",
 * and with a histogram its bounds and the page's counts per bucket; the key's expiry on each.
 */
async function seedBoard(
  o: SeedOptions,
  key: string,
  expireAtMs: number,
  pages: AsyncIterable<MemberPage>,
  bounds: Bounds | undefined,
): Promise<number> {
  let n = 0;
  for await (const page of pages) {
    const args = page.flatMap(([member, score]) => [score, member]);
    const tx = o.redis.multi();
    tx.zadd(key, ...args);
    if (o.mirror) tx.zadd(`${key}!arr`, ...args);
    if (bounds) {
      const counts = new Map<string, number>();
      for (const [, score] of page) {
        const bucket = bucketOf(bounds, score)?.toString("latin1");
        if (bucket !== undefined) counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
      }
      tx.zadd(`${key}!hbounds`, ...bounds.flatMap((b) => [b.first, b.name]));
      for (const [bucket, c] of counts) tx.zincrby(`${key}!hist`, c, Buffer.from(bucket, "latin1"));
    }
    if (expireAtMs >= 0) {
      tx.pexpireat(key, expireAtMs);
      if (o.mirror) tx.pexpireat(`${key}!arr`, expireAtMs);
      if (bounds) tx.pexpireat(`${key}!hbounds`, expireAtMs).pexpireat(`${key}!hist`, expireAtMs);
    }
    for (const [err] of (await tx.exec()) ?? []) if (err) throw err;
    n += page.length;
  }
  return n;
}

/** A "!hbounds" entry's buckets in ZRANGE order: by first sort key, then by name's bytes. */
function boundsOf(value: Buffer): Bounds {
  const out: Bounds = [];
  for (const [name, first] of membersOf(value)) out.push({ name: Buffer.from(name), first });
  return out.sort((a, b) => a.first - b.first || Buffer.compare(a.name, b.name));
}

/** The bucket of sort key `k` as the apply script finds it: the last bound whose first key is <= k; undefined below every bound. */
export function bucketOf(bounds: Bounds, k: number): Buffer | undefined {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]!.first <= k) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : bounds[lo - 1]!.name;
}
