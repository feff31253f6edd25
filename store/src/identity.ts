/**
 * What a shard's Redis was built from, and the stamp every reader and writer checks.
 *
 * A shard's data is a function of the log it replayed and of the configuration that decoded
 * and placed it: the score topic, the slots this shard owns, and the board specs (ranges,
 * resolutions, epochs: they define the sort keys). Change any of them under existing data
 * and answers go silently wrong: players counted on the wrong shard, keys decoded with the
 * wrong range, a recreated topic's records skipped as "already applied". So:
 *
 *   stamp      "<shardId>|topic=<name>|slots=<S>:<hash of this shard's slot list>|boards=<hash
 *              of the board specs>|counts=<buckets of the counts of records per slot>|layout=
 *              <DATA_LAYOUT>": computed by every process from its own configuration and version.
 *              The counts' buckets say which hash holds a player's count (model/src/
 *              record-counts.ts): the writer and the readers take them from the stamp, so they
 *              cannot differ. The layout is the shape of the keys this version writes
 *              (keys.ts); it changes when a key changes type or meaning, so that data an older
 *              version wrote is refused rather than misread (a stamp without it is layout 1).
 *   built-from the stamp plus "|topic-id=<Kafka topic id>", stored once in the shard's Redis
 *              (`<prefix>built-from`) when the shard node first fills it, or by a rebuild.
 *
 * The apply and heartbeat scripts compare the built-from key with the writer's own in the
 * same atomic call as their effects; the shard node refuses to start on a mismatch. The
 * heartbeat key holds the stamp while the shard serves, so every read script checks the
 * reader's stamp against it for free (read-header.lua): a router with other slots or boards
 * is refused with FAILED_PRECONDITION naming what differs. Hashes are FNV-1a 32-bit over a
 * canonical text: short, stable, and only compared for equality.
 */
import type { BoardSpecs } from "@ladder/model/board-spec";
import { fnv1a32 } from "@ladder/model/fnv1a";
import { DEFAULT_RECORD_COUNT_BUCKETS } from "@ladder/model/record-counts";

export interface ShardIdentity {
  shardId: string;
  topic: string;
  numSlots: number;
  /** The slots (partitions) this shard owns. */
  slots: readonly number[];
  boards: BoardSpecs;
  /** Hashes per slot of the counts of records (LADDER_RECORD_COUNT_BUCKETS); DEFAULT_RECORD_COUNT_BUCKETS when not given. */
  recordCountBuckets?: number;
}

/**
 * The shape of a shard's keys this version reads and writes (see above). 3: the counts of records
 * are hashes by slot and bucket, "<prefix>count:records:<slot>:<bucket>" (2: one hash,
 * "<prefix>count:records"; 1: the sorted set "<prefix>board:~records").
 */
export const DATA_LAYOUT = 3;

/** The stamp of `identity` (see above). */
export function shardStamp(i: ShardIdentity): string {
  const slots = [...i.slots].sort((a, b) => a - b).join(",");
  const boards = [...i.boards.all()]
    .map((b) => [b.prefix, b.minPoints, b.maxPoints, b.resolutionMs, b.epochMs, b.ttlSeconds].join(":"))
    .sort()
    .join(";");
  const counts = i.recordCountBuckets ?? DEFAULT_RECORD_COUNT_BUCKETS;
  return `${i.shardId}|topic=${i.topic}|slots=${i.numSlots}:${fnv1aHex(slots)}|boards=${fnv1aHex(boards)}|counts=${counts}|layout=${DATA_LAYOUT}`;
}

/**
 * The buckets of the counts of records a stamp names (DEFAULT_RECORD_COUNT_BUCKETS for a stamp
 * without them: a test's or a bench's made-up one).
 */
export function recordCountBucketsOf(stamp: string): number {
  const n = Number(stampFields(stamp).get("counts"));
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_RECORD_COUNT_BUCKETS;
}

/** The built-from value of a shard filled from topic `topicId` under `stamp`. */
export const builtFrom = (stamp: string, topicId: string) => `${stamp}|topic-id=${topicId}`;

/** The fields of a stamp or built-from value, by name ("shard" for the first). */
export function stampFields(value: string): Map<string, string> {
  const [shard, ...rest] = value.split("|");
  const fields = new Map<string, string>([["shard", shard ?? ""]]);
  for (const part of rest) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return fields;
}

const WHAT: Record<string, string> = {
  shard: "shard id",
  topic: "score topic (LADDER_SCORE_TOPIC)",
  slots: "slots (the placement: AdminService.Reshard moves them; LADDER_SLOTS)",
  boards: "board specs (LADDER_BOARDS)",
  "topic-id": "score topic's id (the topic was deleted and created again)",
  counts: "buckets of the counts of records per slot (LADDER_RECORD_COUNT_BUCKETS: rebuild the shards from the log to change it)",
  layout: "data layout (the version that wrote the shard's keys: rebuild it from the log)",
};

/** What differs between `expected` and `found` (stamps or built-from values), in words. */
export function explainMismatch(expected: string, found: string): string {
  const e = stampFields(expected);
  const f = stampFields(found);
  // a stamp from before layouts were stamped is layout 1
  for (const x of [e, f]) if (x.size > 1 && !x.has("layout")) x.set("layout", "1");
  const diffs = [...new Set([...e.keys(), ...f.keys()])]
    .filter((k) => e.has(k) && f.has(k) && e.get(k) !== f.get(k))
    .map((k) => `${WHAT[k] ?? k}: ${f.get(k)} there, ${e.get(k)} here`);
  return diffs.length ? diffs.join("; ") : `built from "${found}", expected "${expected}"`;
}

const fnv1aHex = (text: string): string => fnv1a32(text).toString(16).padStart(8, "0");
