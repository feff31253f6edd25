/**
 * The apply script's call (apply-events.lua's Input): its keys, and its arguments with every event
 * packed as ONE MessagePack map of named fields (msgpack.ts; Redis's cmsgpack decodes it into a
 * Lua table, `ev.op`, `ev.player`, …) instead of a row of positional arguments.
 *
 * Every key goes into KEYS once, however many events name it: an event names its board key, and
 * its windows their period and window keys, by index into KEYS. A 40-event call on three boards
 * is then 9 + 3 keys (and the windows' few period keys), not 9 + 40 + 10 per windowed event; the
 * script type-checks each key once, and the keys are sent and parsed once.
 *
 * The names below are the Lua's field names: apply-input.lua and the includes/apply-*.lua read
 * exactly these. What many events share goes once per call in ARGV[4] (histogram bounds, board
 * encodings, windows: each distinct one once) and an event names its entry by index (1-based; 0:
 * none): a windowed event's windows are a dozen tables that Redis would otherwise decode again for
 * every event. A field at its default (false, 0, '') is left out of the event's map: the script
 * reads a missing field as its default (apply-input.lua), and decoding is most of what an event
 * costs the script before its commands.
 *
 * A call may apply several partitions (ARGV[1]: each with its dedup set's KEYS index and how many of
 * the events that follow are its): the events of each, in offset order, one partition after another.
 */
import { recordCountBucket } from "@ladder/model/record-counts";
import type { KeyLayout } from "../keys.js";
import { PackWriter, type Packable } from "./msgpack.js";
import type { PreparedEvent, PreparedWindows } from "./prepared-event.js";

/** The fixed keys before the events' board keys (apply-events.lua KEYS[1..9]); KEYS[2] the first partition's dedup set. */
function fixedKeys(keys: KeyLayout, partition: number): string[] {
  return [
    keys.offsets,
    keys.dedup(partition),
    keys.builtFrom,
    keys.snapshotReading,
    keys.snapshotJournal,
    keys.deletedBoards,
    keys.changes,
    keys.changesOn,
    keys.move,
  ];
}

export interface ApplyCall {
  keys: string[];
  args: Array<string | number | Buffer>;
}

const writer = new PackWriter();
const windowPacker = new PackWriter();

/** One partition's events of a call, in offset order. */
export interface PartitionEvents {
  partition: number;
  events: readonly PreparedEvent[];
}

/** The keys and arguments of one apply script call over the events of `groups`, one partition after another. */
export function applyCall(o: {
  keys: KeyLayout;
  groups: readonly PartitionEvents[];
  dedupWindowMs: number;
  builtFrom: string;
  /** Hashes per slot of the counts of records (the stamp's: identity.ts recordCountBucketsOf). */
  recordCountBuckets: number;
}): ApplyCall {
  const keys = fixedKeys(o.keys, o.groups[0]!.partition);
  const at = new Map<string, number>([[keys[1]!, 2]]);
  /** The KEYS index (1-based) of key `full`, added at the first use. */
  const keyOf = (full: string): number => {
    let i = at.get(full);
    if (i === undefined) at.set(full, (i = keys.push(full)));
    return i;
  };
  /** The KEYS index of stored board name `board` (by name first: no key string built per event). */
  const boardAt = new Map<string, number>();
  const key = (board: string): number => {
    let i = boardAt.get(board);
    if (i === undefined) boardAt.set(board, (i = keyOf(o.keys.board(board))));
    return i;
  };
  const histograms: Array<readonly number[]> = [];
  const placed = new Map<readonly number[], number>();
  const histogram = (list: readonly number[] | undefined): number => {
    if (!list?.length) return 0;
    let at = placed.get(list);
    if (at === undefined) placed.set(list, (at = histograms.push(list)));
    return at;
  };
  const encodings: Packable[] = [];
  const encodingAt = new Map<string, number>();
  // the previous event's encoding, compared field by field before a name is built (a call's events are
  // mostly of one board)
  let last: PreparedEvent | undefined;
  let lastAt = 0;
  const encoding = (e: PreparedEvent): number => {
    if (
      last &&
      e.maxPoints === last.maxPoints &&
      e.minPoints === last.minPoints &&
      e.timeUnits === last.timeUnits &&
      e.lowerIsBetter === last.lowerIsBetter
    )
      return lastAt;
    const name = `${e.maxPoints} ${e.minPoints} ${e.timeUnits} ${e.lowerIsBetter}`;
    let at = encodingAt.get(name);
    if (at === undefined) {
      const enc = { max_points: e.maxPoints, min_points: e.minPoints, time_units: e.timeUnits, lower: e.lowerIsBetter };
      encodingAt.set(name, (at = encodings.push(enc)));
    }
    last = e;
    lastAt = at;
    return at;
  };
  // windows by object (prepare-event.ts shares one among the records of a period), then by their
  // packed bytes (copies, as a rebuild makes): equal bytes, one entry
  const windows: Buffer[] = [];
  const windowsAt = new Map<string, number>();
  const windowsSeen = new Map<PreparedWindows, Map<boolean, number>>();
  const windowsOf = (e: PreparedEvent): number => {
    if (!e.windows) return 0;
    let seen = windowsSeen.get(e.windows);
    if (seen === undefined) windowsSeen.set(e.windows, (seen = new Map()));
    let at = seen.get(e.lowerIsBetter);
    if (at !== undefined) return at;
    const bytes = windowPacker.pack(windowFields(e, e.windows, key, histogram));
    const name = bytes.toString("latin1");
    at = windowsAt.get(name);
    if (at === undefined) windowsAt.set(name, (at = windows.push(bytes)));
    seen.set(e.lowerIsBetter, at);
    return at;
  };
  const packed = o.groups.flatMap((g) =>
    g.events.map((e) => packEvent(e, key(e.board), histogram(e.histogram), encoding(e), windowsOf(e), bucketOf(e, o.recordCountBuckets))),
  );
  const groups = o.groups.map((g) => ({ partition: g.partition, dedup: keyOf(o.keys.dedup(g.partition)), events: g.events.length }));
  return { keys, args: [groupsHeader(groups), o.dedupWindowMs, o.builtFrom, sharedTables(histograms, encodings, windows), ...packed] };
}

/** The bucket of the event's count of records (apply-records.lua): a first part naming a player; 0 for the rest (not sent). */
function bucketOf(e: PreparedEvent, buckets: number): number {
  return e.part || e.playerId === "" ? 0 : recordCountBucket(e.playerId, buckets);
}

/** ARGV[1]: the partitions of the call, in order. */
function groupsHeader(groups: ReadonlyArray<{ partition: number; dedup: number; events: number }>): Buffer {
  const w = writer;
  w.start();
  w.array(groups.length);
  for (const g of groups) {
    w.map(3);
    w.raw(K.partition!);
    w.number(g.partition);
    w.raw(K.dedup!);
    w.number(g.dedup);
    w.raw(K.events!);
    w.number(g.events);
  }
  return w.done();
}

/** ARGV[4]: { hist, enc, windows }, the windows already packed. */
function sharedTables(histograms: Array<readonly number[]>, encodings: Packable[], windows: Buffer[]): Buffer {
  const w = writer;
  w.start();
  w.map(3);
  w.raw(K.hist!);
  w.write(histograms);
  w.raw(K.enc!);
  w.write(encodings);
  w.raw(K.windows!);
  w.array(windows.length);
  for (const b of windows) w.raw(b);
  return w.done();
}

/** The field names, encoded once: an event is written field by field (no object built, ~2x faster). */
const K = Object.fromEntries(
  [
    "offset",
    "part",
    "player",
    "op",
    "value",
    "time_idx",
    "enc",
    "ttl",
    "event_id",
    "ingested_ms",
    "expire_at",
    "metadata",
    "report",
    "hist",
    "windows",
    "key",
    "audit",
    "limit",
    "tour",
    "join",
    "max",
    "floor",
    "retain",
    "at",
    "prev",
    "team",
    "left",
    "best",
    "cols",
    "ctime",
    "partition",
    "dedup",
    "events",
    "bucket",
  ].map((name) => [name, PackWriter.key(name)]),
) as Record<string, Buffer>;

/** An event's map (apply-events.lua ARGV[4 + i]; its partition's: ARGV[1]): its fields at their default (false, 0, '') left out. */
function packEvent(e: PreparedEvent, key: number, hist: number, enc: number, windows: number, bucket: number): Buffer {
  const w = writer;
  const md = e.metadata ?? "";
  const report = e.reportId ?? "";
  const audit = e.audit ?? "";
  const limit = e.limit ?? 0;
  const floor = e.floor ?? "";
  const retain = e.retain ?? 0;
  const at = e.atMs ?? 0;
  const prev = e.prev ?? "";
  const team = e.team ?? "";
  const left = e.left ?? false;
  const best = e.best ?? 0;
  const cols = e.cols ?? "";
  const ctime = e.ctime ?? "";
  const fields =
    6 +
    +e.part +
    +(e.value !== 0) +
    +(e.timeIdx !== 0) +
    +(e.ttlSeconds !== 0) +
    +(e.eventId !== "") +
    +(e.expireAtMs !== 0) +
    +(md !== "") +
    +(report !== "") +
    +(hist !== 0) +
    +(windows !== 0) +
    +(audit !== "") +
    +(limit !== 0) +
    +(e.tournament !== undefined) +
    +(floor !== "") +
    +(retain !== 0) +
    +(at !== 0) +
    +(prev !== "") +
    +(team !== "") +
    +left +
    +(best !== 0) +
    +(cols !== "") +
    +(ctime !== "") +
    +(bucket !== 0);
  w.start();
  w.map(fields);
  w.raw(K.key!);
  w.number(key);
  w.raw(K.offset!);
  w.number(Number(e.offset));
  w.raw(K.player!);
  w.string(e.playerId);
  if (bucket !== 0) {
    w.raw(K.bucket!);
    w.number(bucket);
  }
  w.raw(K.op!);
  w.number(e.op);
  w.raw(K.enc!);
  w.number(enc);
  w.raw(K.ingested_ms!);
  w.number(e.ingestedAtMs);
  if (e.part) {
    w.raw(K.part!);
    w.boolean(true);
  }
  if (e.value !== 0) {
    w.raw(K.value!);
    w.number(e.value);
  }
  if (e.timeIdx !== 0) {
    w.raw(K.time_idx!);
    w.number(e.timeIdx);
  }
  if (e.ttlSeconds !== 0) {
    w.raw(K.ttl!);
    w.number(e.ttlSeconds);
  }
  if (e.eventId !== "") {
    w.raw(K.event_id!);
    w.string(e.eventId);
  }
  if (e.expireAtMs !== 0) {
    w.raw(K.expire_at!);
    w.number(e.expireAtMs);
  }
  if (md !== "") {
    w.raw(K.metadata!);
    w.string(md);
  }
  if (report !== "") {
    w.raw(K.report!);
    w.string(report);
  }
  if (hist !== 0) {
    w.raw(K.hist!);
    w.number(hist);
  }
  if (windows !== 0) {
    w.raw(K.windows!);
    w.number(windows);
  }
  if (audit !== "") {
    w.raw(K.audit!);
    w.string(audit);
  }
  if (limit !== 0) {
    w.raw(K.limit!);
    w.number(limit);
  }
  if (e.tournament) {
    w.raw(K.tour!);
    w.map(2);
    w.raw(K.join!);
    w.boolean(e.tournament.join);
    w.raw(K.max!);
    w.number(e.tournament.max);
  }
  if (floor !== "") {
    w.raw(K.floor!);
    w.string(floor);
  }
  if (retain !== 0) {
    w.raw(K.retain!);
    w.number(retain);
  }
  if (at !== 0) {
    w.raw(K.at!);
    w.number(at);
  }
  if (prev !== "") {
    w.raw(K.prev!);
    w.string(prev);
  }
  if (team !== "") {
    w.raw(K.team!);
    w.string(team);
  }
  if (left) {
    w.raw(K.left!);
    w.boolean(true);
  }
  if (best !== 0) {
    w.raw(K.best!);
    w.number(best);
  }
  if (cols !== "") {
    w.raw(K.cols!);
    w.string(cols);
  }
  if (ctime !== "") {
    w.raw(K.ctime!);
    w.string(ctime);
  }
  return w.done();
}

/** An event's windows (apply-windows.lua's Input): its period and window keys as KEYS indices. */
function windowFields(
  e: PreparedEvent,
  w: PreparedWindows,
  key: (board: string) => number,
  histogram: (list: readonly number[] | undefined) => number,
): Packable {
  const periods = w.periodBoards.map(key);
  const list = w.windows.map((x) => ({
    combine: x.combine,
    periods: x.periods,
    keys: x.boards.slice(0, x.periods).map(key),
    hist: histogram(x.histogram),
    enc: { max_points: x.maxPoints, min_points: x.minPoints, time_units: x.timeUnits, lower: e.lowerIsBetter },
    bases: x.baseUnits.slice(0, x.periods),
    expire_at: x.expireAtMs.slice(0, x.periods),
  }));
  return { keys: periods, around: (w.periodBoards.length + 1) / 2, tie: w.tie, list };
}
