import { describe, expect, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { builtFrom, DATA_LAYOUT, explainMismatch, recordCountBucketsOf, shardStamp, stampFields } from "./identity.js";

const boards = (maxPoints = 2 ** 31 - 1) => new BoardSpecs([makeBoardSpec({ ...DEFAULT_BOARD, maxPoints }).spec!]);
const base = { shardId: "shard-1", topic: "ladder.scores", numSlots: 64, slots: [3, 1, 2], boards: boards() };

describe("store > identity", () => {
  it("is the same for the same configuration, whatever the slot order", () => {
    expect(shardStamp(base)).toBe(shardStamp({ ...base, slots: [1, 2, 3], boards: boards() }));
    expect(stampFields(shardStamp(base)).get("shard")).toBe("shard-1");
  });

  it("changes with the topic, the slots and the board specs, and says which", () => {
    const here = shardStamp(base);
    expect(explainMismatch(here, shardStamp({ ...base, topic: "other" }))).toBe(
      "score topic (LADDER_SCORE_TOPIC): other there, ladder.scores here",
    );
    expect(explainMismatch(here, shardStamp({ ...base, slots: [1, 2] }))).toMatch(
      /^slots \(the placement: AdminService\.Reshard moves them; LADDER_SLOTS\): 64:\w{8} there, 64:\w{8} here$/,
    );
    expect(explainMismatch(here, shardStamp({ ...base, numSlots: 32 }))).toMatch(/^slots \(the placement/);
    expect(explainMismatch(here, shardStamp({ ...base, boards: boards(1000) }))).toMatch(
      /^board specs \(LADDER_BOARDS\): \w{8} there, \w{8} here$/,
    );
    expect(explainMismatch(here, shardStamp({ ...base, recordCountBuckets: 4096 }))).toBe(
      "buckets of the counts of records per slot (LADDER_RECORD_COUNT_BUCKETS: rebuild the shards from the log to change it): 4096 there, 1024 here",
    );
    expect(explainMismatch(builtFrom(here, "id-a"), builtFrom(here, "id-b"))).toBe(
      "score topic's id (the topic was deleted and created again): id-b there, id-a here",
    );
    // a shard written by a version of another data layout (one from before layouts were stamped is layout 1)
    const older = here.replace(/\|layout=\d+$/, "");
    expect(explainMismatch(builtFrom(here, "id-a"), builtFrom(older, "id-a"))).toBe(
      `data layout (the version that wrote the shard's keys: rebuild it from the log): 1 there, ${DATA_LAYOUT} here`,
    );
  });

  it("carries the buckets of the counts of records, which writers and readers take from it", () => {
    expect(recordCountBucketsOf(shardStamp(base))).toBe(1024);
    expect(recordCountBucketsOf(shardStamp({ ...base, recordCountBuckets: 16384 }))).toBe(16384);
    expect(recordCountBucketsOf(builtFrom(shardStamp({ ...base, recordCountBuckets: 7 }), "id"))).toBe(7);
    expect(recordCountBucketsOf("bench")).toBe(1024);
  });
});
