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
 * exactly these. Histogram bounds, shared by the events of one board, go once per call (ARGV[4])
 * and an event names its list by index (1-based; 0: none).
 */
import type { KeyLayout } from "../keys.js";
import { PackWriter, type Packable } from "./msgpack.js";
import type { PreparedEvent, PreparedWindows } from "./prepared-event.js";

/** The fixed keys before the events' board keys (apply-events.lua KEYS[1..9]). */
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

/** The keys and arguments of one apply script call over `events` of `partition`. */
export function applyCall(o: {
  keys: KeyLayout;
  partition: number;
  events: readonly PreparedEvent[];
  dedupWindowMs: number;
  builtFrom: string;
}): ApplyCall {
  const keys = fixedKeys(o.keys, o.partition);
  const at = new Map<string, number>();
  /** The KEYS index (1-based) of stored board name `board`, added at the first use. */
  const key = (board: string): number => {
    let i = at.get(board);
    if (i === undefined) at.set(board, (i = keys.push(o.keys.board(board))));
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
  const packed = o.events.map((e) =>
    packEvent(e, key(e.board), histogram(e.histogram), e.windows && windowFields(e, e.windows, key, histogram)),
  );
  return { keys, args: [o.partition, o.dedupWindowMs, o.builtFrom, writer.pack(histograms), ...packed] };
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
    "max_points",
    "min_points",
    "time_units",
    "lower",
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
  ].map((name) => [name, PackWriter.key(name)]),
) as Record<string, Buffer>;

/** An event's map (apply-events.lua ARGV[4 + i]). */
function packEvent(e: PreparedEvent, key: number, hist: number, windows: Packable | undefined): Buffer {
  const w = writer;
  w.start();
  w.map(22);
  w.raw(K.key!);
  w.number(key);
  w.raw(K.offset!);
  w.number(Number(e.offset));
  w.raw(K.part!);
  w.boolean(e.part);
  w.raw(K.player!);
  w.string(e.playerId);
  w.raw(K.op!);
  w.number(e.op);
  w.raw(K.value!);
  w.number(e.value);
  w.raw(K.time_idx!);
  w.number(e.timeIdx);
  w.raw(K.enc!);
  w.map(4);
  w.raw(K.max_points!);
  w.number(e.maxPoints);
  w.raw(K.min_points!);
  w.number(e.minPoints);
  w.raw(K.time_units!);
  w.number(e.timeUnits);
  w.raw(K.lower!);
  w.boolean(e.lowerIsBetter);
  w.raw(K.ttl!);
  w.number(e.ttlSeconds);
  w.raw(K.event_id!);
  w.string(e.eventId);
  w.raw(K.ingested_ms!);
  w.number(e.ingestedAtMs);
  w.raw(K.expire_at!);
  w.number(e.expireAtMs);
  w.raw(K.metadata!);
  w.string(e.metadata ?? "");
  w.raw(K.report!);
  w.string(e.reportId ?? "");
  w.raw(K.hist!);
  w.number(hist);
  w.raw(K.windows!);
  w.write(windows ?? false);
  w.raw(K.audit!);
  w.string(e.audit ?? "");
  w.raw(K.limit!);
  w.number(e.limit ?? 0);
  w.raw(K.tour!);
  if (e.tournament) {
    w.map(2);
    w.raw(K.join!);
    w.boolean(e.tournament.join);
    w.raw(K.max!);
    w.number(e.tournament.max);
  } else w.boolean(false);
  w.raw(K.floor!);
  w.string(e.floor ?? "");
  w.raw(K.retain!);
  w.number(e.retain ?? 0);
  w.raw(K.at!);
  w.number(e.atMs ?? 0);
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
