import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@ladder/platform/logger";
import type { Change } from "../push/change-feed.js";
import { ShardCopy, type Feed } from "./rank-index.js";

// A ShardCopy over a model shard: its board (player -> sort key), its change stream, whether it serves
// and whether a move sets players aside, with a feed that hands the stream on only when the test says.
// The counts a copy answers must be the model's; when it may not answer (behind its bound, refused,
// moving) it must say so (undefined), and a copy that disagrees with the shard must be built again.

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
const STORED = "b";
const KEY = "lb:board:b";

class ModelShard {
  readonly board = new Map<string, number>();
  readonly stream: Change[] = [];
  serving = true;
  moving = false;
  /** Whether the board's metadata companion exists (the probe says so). */
  metadata = false;
  private seq = 0;

  /** The board's first metadata: the marker the apply script appends (apply-metadata.lua). */
  keepMetadata(): void {
    this.metadata = true;
    this.stream.push({ shard: "s", id: `${++this.seq}-0`, key: `${KEY}!meta`, player: "p0", old: undefined, new: undefined });
  }

  /** A change the shard applies, appended to its stream unless `silently` (what a lost change would be). */
  set(player: string, key: number | undefined, silently = false): void {
    const old = this.board.get(player);
    if (key === undefined) this.board.delete(player);
    else this.board.set(player, key);
    if (!silently) this.stream.push({ shard: "s", id: `${++this.seq}-0`, key: KEY, player, old, new: key });
  }

  sorted() {
    return [...this.board].map(([playerId, key]) => ({ key, playerId })).sort((a, b) => a.key - b.key || byBytes(a.playerId, b.playerId));
  }

  ahead(key: number, id: string): number {
    return this.sorted().filter((e) => e.key < key || (e.key === key && byBytes(e.playerId, id) < 0)).length;
  }

  readonly store = {
    shardId: "s",
    after: async (_b: string, from: { key: number; playerId: string }, count: number) => {
      if (!this.serving) throw new Error("not serving");
      const all = this.sorted();
      const start = all.filter((e) => e.key < from.key || (e.key === from.key && byBytes(e.playerId, from.playerId) <= 0)).length;
      return { card: all.length, start, ahead: start, members: all.slice(start, start + count) };
    },
    indexProbe: async () => {
      if (!this.serving) throw new Error("not serving");
      return {
        card: this.board.size,
        moving: this.moving,
        changeId: this.stream.at(-1)?.id ?? "0-0",
        changeGen: "g",
        metadata: this.metadata,
      };
    },
  };
}

function setUp(maxLagMs = 200) {
  const shard = new ModelShard();
  /** Entries the index has room for (ShardCopyOptions.room). */
  const budget = { room: Infinity };
  let handlers!: { onChanges(c: readonly Change[]): void };
  let handed = 0;
  const feed: Feed = {
    start: async () => ((handed = shard.stream.length), feed.at),
    stop: async () => {},
    get at() {
      return shard.stream[handed - 1]?.id ?? "0-0";
    },
    generation: "g",
  };
  const copy = new ShardCopy({
    shard: "s",
    store: () => shard.store as never,
    primaries: { call: (store: unknown, fn: (s: unknown) => unknown) => fn(store) } as never,
    feed: (h) => ((handlers = h), feed),
    keyOf: () => KEY,
    room: (entries: number) => (entries <= budget.room ? { release: () => {} } : undefined),
    afterProbe: () => {},
    refusedMs: 300,
    maxLagMs,
    probeMs: 5,
    log: silentLogger(),
  });
  /** Hands on every change the stream holds. */
  const deliver = () => {
    const batch = shard.stream.slice(handed);
    handed = shard.stream.length;
    if (batch.length) handlers.onChanges(batch);
  };
  return { shard, copy, deliver, budget };
}

/** The copy's counts ahead of a few positions, or undefined when it may not answer. */
function counts(copy: ShardCopy): number[] | undefined {
  const c = copy.answering(STORED);
  return c && [0, 37, 50, 99].map((k) => c.entries.countAhead(k, "p5"));
}
const modelCounts = (shard: ModelShard) => [0, 37, 50, 99].map((k) => shard.ahead(k, "p5"));

/** Waits with room for a busy machine (the probes run every 5 ms). */
const wait = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 10 });

let stop: (() => Promise<void>) | undefined;
afterEach(async () => stop?.());

describe("ShardCopy", () => {
  it("answers the shard's counts once scanned and caught up with a probe, and follows its changes", async () => {
    const { shard, copy, deliver } = setUp();
    for (let i = 0; i < 40; i++) shard.set(`p${i}`, (i * 7) % 100);
    await copy.start();
    stop = () => copy.stop();
    expect(copy.answering(STORED)).toBeUndefined(); // the first ask starts the copy
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    for (let i = 0; i < 30; i++) shard.set(`p${i % 45}`, i % 3 === 0 ? undefined : (i * 13) % 100);
    deliver();
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard))); // applied as handed on
  });

  it("stops answering when its feed falls behind the bound, and when the shard refuses a probe", async () => {
    const { shard, copy, deliver } = setUp(100);
    for (let i = 0; i < 20; i++) shard.set(`p${i}`, i);
    await copy.start();
    stop = () => copy.stop();
    copy.answering(STORED);
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    shard.set("p1", 60); // the feed does not hand it on: the probes' positions are not reached
    await wait(() => expect(counts(copy)).toBeUndefined());
    deliver();
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    shard.serving = false;
    await wait(() => expect(counts(copy)).toBeUndefined());
    shard.serving = true;
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
  });

  it("does not answer while a move sets players aside, and is built again when it ends", async () => {
    const { shard, copy, deliver } = setUp();
    for (let i = 0; i < 20; i++) shard.set(`p${i}`, i);
    await copy.start();
    stop = () => copy.stop();
    copy.answering(STORED);
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    shard.moving = true;
    await wait(() => expect(counts(copy)).toBeUndefined());
    // the move's arrivals are not in the change stream
    for (let i = 20; i < 30; i++) shard.set(`p${i}`, i * 3, true);
    shard.moving = false;
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    deliver();
  });

  it("knows its board keeps metadata from the probe after the scan, or from the stream's marker", async () => {
    for (const from of ["probe", "marker"] as const) {
      const { shard, copy, deliver } = setUp();
      for (let i = 0; i < 20; i++) shard.set(`p${i}`, i);
      if (from === "probe") shard.metadata = true;
      await copy.start();
      stop = () => copy.stop();
      copy.answering(STORED);
      await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
      expect([from, copy.answering(STORED)!.metadata]).toEqual([from, from === "probe"]);
      if (from === "marker") {
        shard.keepMetadata();
        shard.set("p3", 77);
        deliver();
        await wait(() => expect(counts(copy)).toEqual(modelCounts(shard))); // the marker is no entry: the counts stay the shard's
        expect(copy.answering(STORED)!.metadata).toBe(true);
      }
      await copy.stop();
    }
  });

  it("does not copy a board that does not fit the index's entries, and drops a live copy the index refuses", async () => {
    const { shard, copy, budget } = setUp();
    for (let i = 0; i < 20; i++) shard.set(`p${i}`, i);
    budget.room = 19;
    await copy.start();
    stop = () => copy.stop();
    expect(copy.answering(STORED)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 100)); // 20 probes: it stays unread
    expect([copy.answering(STORED), copy.size]).toEqual([undefined, 0]);
    await copy.stop();

    const live = setUp();
    for (let i = 0; i < 20; i++) live.shard.set(`p${i}`, i);
    await live.copy.start();
    stop = () => live.copy.stop();
    live.copy.answering(STORED);
    await wait(() => expect(counts(live.copy)).toEqual(modelCounts(live.shard)));
    live.copy.refuse(STORED, "a test");
    expect([live.copy.answering(STORED), live.copy.size]).toEqual([undefined, 0]);
    // the board moves while refused (its copy buffers none of it); asked again after refusedMs, it is scanned anew
    for (let i = 0; i < 30; i++) live.shard.set(`p${i % 25}`, (i * 11) % 100);
    live.deliver();
    expect(live.copy.size).toBe(0);
    await new Promise((r) => setTimeout(r, 350));
    live.copy.answering(STORED);
    await wait(() => expect(counts(live.copy)).toEqual(modelCounts(live.shard)));
  });

  it("is built again when it holds another size than the shard at the same stream position", async () => {
    const { shard, copy } = setUp();
    for (let i = 0; i < 20; i++) shard.set(`p${i}`, i);
    await copy.start();
    stop = () => copy.stop();
    copy.answering(STORED);
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    shard.set("p99", 1, true); // a change the stream never saw
    await wait(() => expect(counts(copy)).toEqual(modelCounts(shard)));
    expect(copy.size).toBe(21);
  });
});
