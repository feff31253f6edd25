/**
 * The league records on a real Redis (apply-leagues.lua, read-league.lua): placements by arrival in
 * cohorts of at most N per tier and bracket, tiers moved by the close, the next period's
 * placements held back until the close is settled, and a closed period taking nothing more. The
 * expected cohorts are counted here from the order of the records, not from the apply script.
 */
import { create } from "@bufbuild/protobuf";
import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind } from "@ladder/proto/leaderboard/v1/common_pb";
import { normalizeDefinition, specOfDefinition } from "@ladder/model/board-definitions";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { cohortOfCode, tierOfScore } from "@ladder/model/leagues";
import {
  encodeBoardDeletion,
  encodeLeagueClose,
  encodeLeaguePlacement,
  encodePeriodClose,
  encodeScoreEvent,
} from "@ladder/model/score-event";
import { decodeSortKey } from "@ladder/model/score-encoding";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { builtFrom, shardStamp } from "./identity.js";
import { ShardReader } from "./reader.js";
import { ShardWriter } from "./writer/shard-writer.js";
import { prepareEvent } from "./writer/prepare-event.js";

const T0 = Date.UTC(2026, 11, 7); // a Monday: week 2026-W50 starts
const WEEK = 7 * 86_400_000;
const { definition } = normalizeDefinition(
  create(BoardDefinitionSchema, {
    name: "arena",
    defaultOp: Operation.INCREMENT,
    rules: {
      period: PeriodKind.WEEKLY,
      keepPeriods: 2,
      close: { graceMs: 0n },
      league: { cohortSize: 3, tiers: 3, promote: 1, relegate: 1, brackets: 2 },
    },
  }),
  T0 - 1000,
);
const rules = definition!.rules!;
const stored = `arena#${rules.generation}`;
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const identity = { shardId: "shard-l", topic: "t", numSlots: 4, slots: [0, 1, 2, 3], boards };
const STAMP = shardStamp(identity);
const redis = new Redis(inject("redisUrls")[0]!);
let writer: ShardWriter;
let reader: ShardReader;
let offset = 0n;

afterAll(() => redis.quit());
beforeEach(async () => {
  const { keyPrefix } = freshNamespace("league");
  writer = new ShardWriter({
    shardId: "shard-l",
    stamp: STAMP,
    builtFrom: builtFrom(STAMP, "topic-l"),
    redis,
    keyPrefix,
    dedupWindowMs: 60_000,
  });
  reader = new ShardReader({ shardId: "shard-l", stamp: STAMP, redis, keyPrefix });
  await writer.markServing(60_000);
  offset = 0n;
});

/** Applies records to partition 0, in order. */
async function apply(...values: Buffer[]): Promise<void> {
  const events = values.flatMap((v) => {
    const { events, problem } = prepareEvent(v, offset++, boards, 4);
    expect(problem).toBeUndefined();
    return events;
  });
  const r = await writer.apply(0, events);
  expect(r.inSequence).toBe(true);
}

const W50 = { id: "2026-W50", startMs: T0, expireAtMs: T0 + 3 * WEEK };
const W51 = { id: "2026-W51", startMs: T0 + WEEK, expireAtMs: T0 + 4 * WEEK };
const place = (player: string, p: { id: string; expireAtMs: number }, previous = "", bracket = 0, reportId = "") =>
  encodeLeaguePlacement("arena", player, rules, { period: p.id, expireAtMs: p.expireAtMs, previous, bracket, reportId }, T0);

/** A score of `player` in cohort `cohort` of period `p`, written a second into it. */
const write = (player: string, value: number, cohort: string, p = W50) =>
  encodeScoreEvent(
    { board: "arena", playerId: player, op: Operation.INCREMENT, value: BigInt(value), timestampMs: BigInt(p.startMs + 1000), eventId: "" },
    p.startMs + 1000,
    { rules, period: { id: `${p.id}/${cohort}`, expireAtMs: p.expireAtMs } },
  );

async function cohortOf(period: string, player: string) {
  const r = await reader.league(stored, period, player);
  return r.code < 0 ? undefined : cohortOfCode(r.code);
}

describe("league records > applied", () => {
  it("places players by arrival in cohorts of at most N per tier and bracket, each once", async () => {
    const players = Array.from({ length: 8 }, (_, i) => `p${i}`);
    // brackets alternate: bracket b's k-th arrival (from 0) sits in cohort floor(k / 3)
    await apply(...players.map((p, i) => place(p, W50, "", i % 2)));
    await apply(place("p0", W50, "", 1), place("p3", W50)); // placed already: nothing changes
    const seats = [0, 0];
    for (const [i, p] of players.entries()) {
      const bracket = i % 2;
      expect(await cohortOf(W50.id, p), p).toEqual({ tier: 0, bracket, index: Math.floor(seats[bracket]!++ / 3) });
    }
    const r = await reader.league(stored, W50.id, "");
    expect(r.groups).toEqual([
      { group: "t0b0", players: 4 },
      { group: "t0b1", players: 4 },
    ]);
    expect(r.settled).toBe(false);
    expect(await cohortOf(W51.id, "p0")).toBeUndefined();
  });

  it("holds the next period's placements of the period's players until its close is settled, then places by the new tiers", async () => {
    await apply(place("a", W50), place("b", W50));
    await apply(encodePeriodClose("arena", rules.generation, "2026-W49", T0)); // a marker already there: every record asks the set
    // b played W50: its tier may move at W50's close; c did not: placed at once
    await apply(place("b", W51, W50.id, 0, "rep-1"), place("c", W51, W50.id, 0, "rep-c"));
    expect(await cohortOf(W51.id, "b")).toBeUndefined();
    expect(await reader.outcome("rep-1")).toBe("settling");
    expect([await reader.outcome("rep-c"), await cohortOf(W51.id, "c")]).toEqual(["placed", { tier: 0, bracket: 0, index: 0 }]);
    // the close: a up to tier 1; then a tier of an earlier period changes nothing
    await apply(encodeLeagueClose("arena", rules, W50, T0, { playerId: "a", tier: 1 }));
    await apply(encodeLeagueClose("arena", rules, { id: "2026-W49", startMs: T0 - WEEK }, T0, { playerId: "a", tier: 0 }));
    expect(tierOfScore((await reader.league(stored, W51.id, "a")).tier)).toBe(1);
    await apply(place("a", W51, W50.id, 0, "rep-2"));
    expect(await reader.outcome("rep-2")).toBe("settling");
    await apply(encodeLeagueClose("arena", rules, W50, T0));
    expect((await reader.league(stored, W50.id, "")).settled).toBe(true);
    await apply(place("b", W51, W50.id, 0, "rep-3"), place("a", W51, W50.id));
    expect(await reader.outcome("rep-3")).toBe("placed");
    expect(await cohortOf(W51.id, "a")).toEqual({ tier: 1, bracket: 0, index: 0 });
    expect(await cohortOf(W51.id, "b")).toEqual({ tier: 0, bracket: 0, index: 0 }); // c's cohort: 2 of 3 seats
  });

  it("places without waiting when the period before had no players", async () => {
    await apply(place("z", W51, W50.id));
    expect(await cohortOf(W51.id, "z")).toEqual({ tier: 0, bracket: 0, index: 0 });
  });

  it("takes a cohort's scores until the period's close marker, then neither scores nor placements", async () => {
    await apply(place("a", W50), write("a", 5, "t0b0c0"));
    expect(await reader.entry(`${stored}@${W50.id}/t0b0c0`, "a")).toBeDefined();
    await apply(encodePeriodClose("arena", rules.generation, W50.id, T0 + WEEK));
    await apply(write("a", 7, "t0b0c0"), place("late", W50));
    expect(await cohortOf(W50.id, "late")).toBeUndefined();
    const key = await reader.entry(`${stored}@${W50.id}/t0b0c0`, "a");
    expect(decodeSortKey(specOfDefinition(definition!), key!).points).toBe(5); // the 7 came after the marker
  });

  it("takes nothing of a period after its close marker within the same call (in that partition only), nor of a generation after its deletion marker", async () => {
    // one call: scores before a marker apply, the same keys' scores after it do not (the call's kept answers are dropped at the marker)
    const points = async (player: string) => {
      const key = await reader.entry(`${stored}@${W50.id}/t0b0c0`, player);
      return key === undefined ? undefined : decodeSortKey(specOfDefinition(definition!), key).points;
    };
    await apply(place("a", W50), place("b", W50));
    await apply(encodePeriodClose("arena", rules.generation, "2026-W49", T0)); // a marker already there: every record asks the set
    await apply(write("a", 5, "t0b0c0"), encodePeriodClose("arena", rules.generation, W50.id, T0 + WEEK), write("a", 7, "t0b0c0"));
    expect(await points("a")).toBe(5);
    await apply(place("c", W51), write("b", 2, "t0b0c0"));
    expect(await points("b")).toBeUndefined(); // closed before this call: not taken either
    // one call of two partitions: partition 1 applied no close marker of the period, so its record is taken
    const prepared = (value: Buffer, at: bigint) => prepareEvent(value, at, boards, 4).events;
    await Promise.all([
      writer.apply(0, prepared(write("b", 3, "t0b0c0"), offset++)),
      writer.apply(1, prepared(write("b", 4, "t0b0c0"), 0n)),
    ]);
    expect(await points("b")).toBe(4);
    // the deletion marker (one partition of 4 here: the keys stay until every partition has one): later records of the generation are not taken
    await apply(write("c", 3, "t0b0c0", W51), encodeBoardDeletion("arena", rules, T0 + WEEK + 2000), write("c", 4, "t0b0c0", W51));
    const key = await reader.entry(`${stored}@${W51.id}/t0b0c0`, "c");
    expect(decodeSortKey(specOfDefinition(definition!), key!).points).toBe(3);
  });

  it("leaves out a score whose cohort the league has not (a record names no cohort, or a bad one)", () => {
    const write = (period: string) =>
      encodeScoreEvent(
        { board: "arena", playerId: "a", op: Operation.INCREMENT, value: 1n, timestampMs: BigInt(T0 + 1000), eventId: "" },
        T0 + 1000,
        { rules, period: { id: period, expireAtMs: W50.expireAtMs } },
      );
    expect(prepareEvent(write(W50.id), 0n, boards).problem).toMatch(/names no cohort of league "arena"/);
    expect(prepareEvent(write(`${W50.id}/t3b0c0`), 0n, boards).problem).toMatch(/tier 3 is past the league's tiers/);
    expect(prepareEvent(write(`${W50.id}/t0c0`), 0n, boards).problem).toMatch(/not a cohort id of this league/);
  });
});
