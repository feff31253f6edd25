// Periods past `keep_periods`, read again through an audit view rebuilt from the log, on real
// processes (Kafka, Redis, 3 shard nodes, router, ingest). A daily board keeping no past period
// (keep_periods 0) holds two days of records: three days ago and two days ago, written to the log as
// ingest wrote them then (the test cannot wait for days to pass: it produces the records ingest would
// have produced, with their period and its expiry, which has passed), and today's, through ingest.
// The live board answers today and refuses the past days (NOT_FOUND, no longer kept); its shards
// dropped their keys as they applied them. An audit view rebuilt from the log keeps them: top, rank,
// around and pages of each past day equal an oracle of its records, while writers keep writing today's
// period and readers read the view and the live board at once (every view answer the same as the
// oracle, every live answer consistent); today's period in the view equals the live one as of the
// rebuild.
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService, type BoardDefinition, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { LogClient } from "@ladder/log/log-client";
import { specOfRules } from "@ladder/model/board-definitions";
import { periodAt } from "@ladder/model/periods";
import { slotOf } from "@ladder/model/placement";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { rootLogger } from "@ladder/platform/logger";
import { served, startTestCluster, TEST_TOKENS, type TestCluster, untilIngestKnows } from "./cluster-harness.js";

const BOARD = "past-days";
const DAY = 86_400_000;
const log = rootLogger({ level: "fatal", name: "test-past-periods" });

let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
let definition: BoardDefinition;

beforeAll(async () => {
  c = await startTestCluster("past-periods");
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  const made = await admin.createBoard({
    board: { name: BOARD, defaultOp: Operation.INCREMENT, rules: { period: PeriodKind.DAILY, timeZone: "UTC", keepPeriods: 0 } },
  });
  definition = made.board!;
  await untilIngestKnows(c, BOARD);
}, 180_000);

afterAll(async () => {
  admin?.close();
  await c?.stop();
});

/** The board as its updates make it: INCREMENT scores, best first, ties by player id (the board's order and tie rule checked below). */
function oracleOf(updates: Array<{ player: string; value: number }>): Array<{ playerId: string; score: bigint }> {
  const scores = new Map<string, number>();
  for (const u of updates) scores.set(u.player, (scores.get(u.player) ?? 0) + u.value);
  return [...scores]
    .map(([playerId, s]) => ({ playerId, score: BigInt(s) }))
    .sort((a, b) => (a.score === b.score ? 0 : a.score > b.score ? -1 : 1));
}

const plain = (entries: Entry[]) => entries.map((e) => ({ playerId: e.playerId, score: e.score, rank: Number(e.rank) }));

describe("periods past keep_periods", () => {
  it("are gone from the live board and readable again in an audit view, exact, while writes go on", async () => {
    const spec = specOfRules(BOARD, definition.rules!).spec!;
    const now = Date.now();
    // two past days, written as ingest wrote them then: each update at its own time, its period's expiry passed
    const days = [3, 2].map((ago) => periodAt(spec.period, now - ago * DAY));
    const past = new Map<string, Array<{ player: string; value: number }>>();
    const producer = await LogClient.unconnected(inject("kafkaBrokers"), "test-past", log).producer();
    const sent: PartitionOffset[] = [];
    for (const [d, day] of days.entries()) {
      const updates = Array.from({ length: 300 }, (_, i) => ({ player: `p${(i * 7 + d) % 120}`, value: 1 + ((i * 13 + d * 5) % 50) }));
      past.set(day.id, updates);
      const records = updates.map((u, i) => {
        const at = day.startMs + 1_000 * (i + 1);
        const value = encodeScoreEvent(
          {
            board: BOARD,
            playerId: u.player,
            op: Operation.INCREMENT,
            value: BigInt(u.value),
            timestampMs: BigInt(at),
            eventId: `past-${day.id}-${i}`,
          },
          at, // ingested then
          { rules: definition.rules!, period: { id: day.id, expireAtMs: day.expireAtMs } },
        );
        return { key: u.player, value, partition: slotOf(u.player, 12) };
      });
      expect(day.expireAtMs).toBeLessThan(now); // no longer kept by the live board
      for (const w of await producer.send(c.ns.topic, records)) {
        const count = records.filter((r) => r.partition === w.partition).length; // the last of them is applied last
        sent.push({ partition: w.partition, offset: BigInt(w.baseOffset) + BigInt(count) - 1n } as PartitionOffset);
      }
    }
    await producer.disconnect();

    // today's period, through ingest, while the view is built and read
    const today: Array<{ player: string; value: number }> = [];
    const write = async (n: number, tag: string) => {
      const updates = Array.from({ length: n }, (_, i) => ({ player: `t${(i * 11) % 90}`, value: 1 + (i % 9) }));
      const res = await c.ingest.submitScores({
        updates: updates.map((u, i) => ({ board: BOARD, playerId: u.player, value: BigInt(u.value), eventId: `${tag}-${i}` })),
      });
      today.push(...updates);
      return res.offsets;
    };
    await c.waitApplied([...sent, ...(await write(200, "before"))]);

    // the live board: today answered, the past days refused
    expect(Number((await served(() => c.router.getTop({ board: BOARD }))).total)).toBe(oracleOf(today).length);
    for (const day of days) {
      const err = await served(() => c.router.getTop({ board: BOARD, period: day.id })).then(
        () => undefined,
        (e: { code: number; details: string }) => e,
      );
      expect(err?.code).toBe(status.NOT_FOUND);
      expect(err?.details).toContain(`period ${day.id} of board "${BOARD}" is no longer kept`);
    }

    // the view, rebuilt from the log while writers write today's period and readers read
    let writing = true;
    let readingView = false;
    const viewAnswers: string[] = [];
    const written: PartitionOffset[] = [];
    const writers = (async () => {
      for (let n = 0; writing; n++) written.push(...(await write(50, `during-${n}`)));
    })();
    const rebuilt: RebuildShardsResponse[] = [];
    for await (const p of admin.rebuildShards({ auditView: "history" }) as AsyncIterable<RebuildShardsResponse>) rebuilt.push(p);
    expect(rebuilt.some((p) => p.phase === 2)).toBe(true);
    readingView = true;

    const checkView = async (day: { id: string }) => {
      const want = oracleOf(past.get(day.id)!);
      const top = await served(() => c.router.getTop({ board: BOARD, period: day.id, view: "history", limit: 1000 }));
      expect(Number(top.total)).toBe(want.length);
      const got = plain(top.entries);
      expect(new Set(got.map((e) => e.playerId)).size).toBe(got.length); // no player twice
      got.forEach((e, i) => expect(e.rank).toBe(i + 1)); // consecutive ranks
      expect(got.map((e) => e.score)).toEqual(want.map((w) => w.score));
      expect(new Set(got.map((e) => `${e.playerId}:${e.score}`))).toEqual(new Set(want.map((w) => `${w.playerId}:${w.score}`)));
      // a player's rank and its neighbours agree with the page
      const probe = got[Math.floor(got.length / 2)]!;
      const rank = await served(() => c.router.getRank({ board: BOARD, period: day.id, view: "history", playerId: probe.playerId }));
      expect(Number(rank.entry!.rank)).toBe(probe.rank);
      const around = await served(() =>
        c.router.getAround({ board: BOARD, period: day.id, view: "history", playerId: probe.playerId, radius: 3 }),
      );
      expect(plain(around.entries)).toEqual(got.slice(probe.rank - 4, probe.rank + 3));
      viewAnswers.push(day.id);
    };
    const readers = (async () => {
      while (writing) {
        for (const day of days) await checkView(day);
        // the live board meanwhile: today's period, consistent on every answer
        const live = plain((await served(() => c.router.getTop({ board: BOARD, limit: 1000 }))).entries);
        expect(new Set(live.map((e) => e.playerId)).size).toBe(live.length);
        live.forEach((e, i) => expect(e.rank).toBe(i + 1));
      }
    })();
    await new Promise((r) => setTimeout(r, 3_000));
    writing = false;
    await Promise.all([writers, readers]);
    expect(readingView).toBe(true);
    expect(viewAnswers.length).toBeGreaterThanOrEqual(2);

    // at rest: each past day once more, and today's live period equal to its oracle once the last
    // acknowledged writes are applied (a busy machine may still be applying them)
    for (const day of days) await checkView(day);
    await c.waitApplied(written);
    const live = await served(() => c.router.getTop({ board: BOARD, limit: 1000 }));
    expect(plain(live.entries).map((e) => e.score)).toEqual(oracleOf(today).map((w) => w.score));
    // the live board still refuses the past days: the view did not bring them back there
    await expect(served(() => c.router.getTop({ board: BOARD, period: days[0]!.id }))).rejects.toMatchObject({ code: status.NOT_FOUND });
  }, 240_000);
});
