// The change stream (apply-changes.lua) as the routers' feeds read it: while the change flag exists,
// every entry added, moved or removed appends (board key, player, old and new sort keys) in the
// order applied, and the first metadata a board keeps appends a marker ("<key>!meta", no sort keys)
// before the change of the entry it came with, once per board (apply-metadata.lua): the rank
// index's copies, which hold sort keys only, learn from it that their board keeps metadata.
import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { makeBoardSpec, DEFAULT_BOARD, BoardSpecs } from "@ladder/model/board-spec";
import { encodeSortKey } from "@ladder/model/score-encoding";
import { slotOf } from "@ladder/model/placement";
import { builtFrom, shardStamp } from "./identity.js";
import { keyLayout } from "./keys.js";
import { APPLY_OP } from "./script-codes.js";
import { noopEvent } from "./writer/prepare-event.js";
import { ShardWriter, type PreparedEvent } from "./writer/shard-writer.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const SLOTS = 4;
const redis = new Redis(inject("redisUrls")[0]!);
const identity = { shardId: "shard-c", topic: "t", numSlots: SLOTS, slots: [0, 1, 2, 3], boards: new BoardSpecs([spec]) };
const STAMP = shardStamp(identity);
let writer: ShardWriter;
let keys: ReturnType<typeof keyLayout>;
const offsets = new Map<number, bigint>();

afterAll(() => redis.quit());
beforeEach(async () => {
  const { keyPrefix } = freshNamespace("changes");
  keys = keyLayout(keyPrefix);
  writer = new ShardWriter({ shardId: "shard-c", stamp: STAMP, builtFrom: builtFrom(STAMP, "tid"), redis, keyPrefix, dedupWindowMs: 0 });
  await writer.markServing(60_000);
  offsets.clear();
});

/** Player `player` set to `points` on board "b", with `metadata` ('' none), applied alone. */
async function set(player: string, points: number, metadata = ""): Promise<void> {
  const p = slotOf(player, SLOTS);
  const offset = offsets.get(p) ?? 0n;
  offsets.set(p, offset + 1n);
  const e: PreparedEvent = {
    ...noopEvent(offset),
    board: "b",
    playerId: player,
    op: APPLY_OP.SET,
    value: points,
    maxPoints: spec.maxPoints,
    timeUnits: spec.timeUnits,
    metadata,
  };
  expect((await writer.apply(p, [e])).inSequence).toBe(true);
}

/** The stream's entries as "key player old new", the board key shortened to "b". */
async function stream(): Promise<string[]> {
  const board = keys.board("b");
  const entries = (await redis.xrange(keys.changes, "-", "+")) as Array<[string, string[]]>;
  return entries.map(([, f]) => {
    const m = new Map<string, string>();
    for (let i = 0; i + 1 < f.length; i += 2) m.set(f[i]!, f[i + 1]!);
    return [m.get("k")!.replace(board, "b"), m.get("p"), m.get("o") || "-", m.get("n") || "-"].join(" ");
  });
}

const key = (points: number) => String(encodeSortKey(spec, points, spec.epochMs));

describe("the change stream", () => {
  it("holds each entry's change, and a board's first metadata as a marker before the change it came with", async () => {
    await set("x", 1); // no flag: nothing appended
    await redis.set(keys.changesOn, "1", "PX", 60_000);
    await set("a", 5);
    await set("a", 7, "md-a"); // the board's first metadata
    await set("b", 3, "md-b"); // kept already: no marker
    await set("a", 7, "md-a2"); // metadata alone, the entry unchanged
    expect(await stream()).toEqual([`b a - ${key(5)}`, "b!meta a - -", `b a ${key(5)} ${key(7)}`, `b b - ${key(3)}`]);
  });

  it("appends no marker for a board whose metadata was kept before the flag", async () => {
    await set("a", 5, "md-a");
    await redis.set(keys.changesOn, "1", "PX", 60_000);
    await set("b", 6, "md-b");
    expect(await stream()).toEqual([`b b - ${key(6)}`]);
  });
});
