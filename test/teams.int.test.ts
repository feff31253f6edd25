import { status } from "@grpc/grpc-js";
import { afterAll, describe, expect, inject, it } from "vitest";
import { groupMemberPartitions, teamDeriverGroupOf } from "@ladder/log/group-batches";
import { LogClient } from "@ladder/log/log-client";
import { silentLogger } from "@ladder/platform/logger";
import type { RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, TeamCombine, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, startTwinCluster } from "./cluster-harness.js";

const log = silentLogger();

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

const PLAYERS = Array.from({ length: 60 }, (_, i) => `m-${String(i).padStart(2, "0")}`);
const CLANS = Array.from({ length: 6 }, (_, i) => `clan-${i}`);
const SQUADS = Array.from({ length: 4 }, (_, i) => `squad-${i}`);
const BEST_K = 3;
const WRITES = 10;
const RETRY = new Set<number>([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function retried<T>(call: () => Promise<T>, forMs = 10_000): Promise<{ ok: T } | { code: number; details: string }> {
  for (const from = Date.now(); ; ) {
    const o = await outcome(call());
    if ("ok" in o || !RETRY.has(o.code) || Date.now() - from > forMs) return o;
    await sleep(200);
  }
}

/** The oracle: each team's points from its members' points, and its members, best first (then player id bytes). */
function teamsOf(points: Map<string, number>, teamOf: Map<string, string>, bestK: number) {
  const members = new Map<string, Array<{ playerId: string; points: number }>>();
  for (const [p, team] of teamOf) members.set(team, [...(members.get(team) ?? []), { playerId: p, points: points.get(p) ?? 0 }]);
  const out = new Map<string, { points: number; members: Array<{ playerId: string; points: number }> }>();
  for (const [team, ms] of members) {
    ms.sort((a, b) => b.points - a.points || Buffer.compare(Buffer.from(a.playerId), Buffer.from(b.playerId)));
    const counted = bestK > 0 ? ms.slice(0, bestK) : ms;
    out.set(team, { points: counted.reduce((s, m) => s + m.points, 0), members: ms });
  }
  return out;
}

describe("teams", () => {
  it("keeps every team's points from its members' exactly once: concurrent writes, switches, a killed deriver, a rebuild", async () => {
    const { c, admin, ingests, routers, router2 } = await startTwinCluster("teams", cleanups);

    await admin.createBoard({ board: { name: "solo", defaultOp: Operation.INCREMENT, rules: { maxPoints: 1_000_000n } } });
    await admin.createBoard({ board: { name: "clans", rules: { maxPoints: 100_000_000n, team: { source: "solo" } } } });
    await admin.createBoard({
      board: { name: "squads", rules: { maxPoints: 100_000_000n, team: { source: "solo", combine: TeamCombine.BEST, bestK: BEST_K } } },
    });
    const refusal = async (p: Promise<unknown>) => {
      const o = await outcome(p);
      return "code" in o ? [o.code, o.details] : ["ok"];
    };
    expect(await refusal(admin.createBoard({ board: { name: "bad", rules: { team: { source: "nowhere" } } } }))).toEqual([
      status.FAILED_PRECONDITION,
      'team.source: board "nowhere" is not defined',
    ]);
    for (const ingest of ingests)
      for (const from = Date.now(); ; await sleep(50)) {
        const got = await outcome(ingest.setTeam({ board: "squads", playerId: "probe", teamId: "" }));
        if ("ok" in got) break;
        if (Date.now() - from > 30_000) throw new Error(`ingest does not know the team boards: ${JSON.stringify(got)}`);
      }
    expect(await refusal(ingests[0]!.submitScores({ updates: [{ board: "clans", playerId: "x", value: 1n, op: Operation.SET }] }))).toEqual(
      [
        status.INVALID_ARGUMENT,
        'updates[0]: board "clans" is a team board: its teams\' points are kept from their members\' points on "solo" (IngestService.SetTeam makes members)',
      ],
    );
    expect(await refusal(ingests[1]!.setTeam({ board: "clans", playerId: "x", teamId: " red" }))).toEqual([
      status.INVALID_ARGUMENT,
      "team_id starts or ends with whitespace",
    ]);
    expect(await refusal(ingests[1]!.setTeam({ board: "solo", playerId: "x", teamId: "red" }))).toEqual([
      status.NOT_FOUND,
      'board "solo" is no team board (BoardRules.team)',
    ]);
    expect(await refusal(admin.wipeBoard({ board: "solo", reason: "test" }))).toEqual([
      status.FAILED_PRECONDITION,
      expect.stringContaining('board "solo" feeds team boards "clans", "squads": cannot wipe it'),
    ]);
    expect(await refusal(admin.deleteBoard({ name: "solo" }))).toEqual([
      status.FAILED_PRECONDITION,
      'board "solo" is the source of team boards "clans", "squads": delete them first',
    ]);

    const client = LogClient.unconnected(inject("kafkaBrokers"), "test-teams", log);
    // the oracle's state: what was acknowledged
    const points = new Map<string, number>();
    const clanOf = new Map<string, string>();
    const squadOf = new Map<string, string>();
    const setTeam = async (ingest: number, board: "clans" | "squads", playerId: string, teamId: string) => {
      const got = await retried(() => ingests[ingest]!.setTeam({ board, playerId, teamId }));
      if ("code" in got) throw new Error(`SetTeam ${board} ${playerId} ${teamId}: ${got.code} ${got.details}`);
      (board === "clans" ? clanOf : squadOf).set(playerId, teamId);
    };
    await Promise.all(
      PLAYERS.map(async (p, i) => {
        await setTeam(i % 2, "clans", p, CLANS[i % CLANS.length]!);
        await setTeam((i + 1) % 2, "squads", p, SQUADS[i % SQUADS.length]!);
      }),
    );

    // readers check every answer of both team boards while members write and switch
    const problems: string[] = [];
    let answers = 0;
    let stop = false;
    let secondUp = true;
    const readers = Array.from({ length: 3 }, async (_, r) => {
      for (let n = r; !stop; n++) {
        // picked at each attempt: a read refused while the second router dies is asked again of the first
        const router = () => routers[secondUp ? n % 2 : 0]!;
        const board = n % 2 === 0 ? "clans" : "squads";
        const got = await retried<unknown>(() =>
          n % 3 === 0
            ? router().getTeam({ board, teamId: (board === "clans" ? CLANS : SQUADS)[n % 4]! })
            : router().getTop({ board, limit: 10 }),
        );
        if ("code" in got) {
          if (got.code !== status.NOT_FOUND) problems.push(`${board}: ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        const a = got.ok as {
          entries?: Entry[];
          entry?: Entry;
          total: bigint;
          members?: Array<{ playerId: string; points: bigint; counted: boolean }>;
        };
        const entries = a.entries ?? (a.entry ? [a.entry] : []);
        entries.forEach((e, i) => {
          if (e.rank < 1n || e.rank > a.total) problems.push(`${board}: rank ${e.rank} of ${a.total}`);
          if (i > 0 && (e.rank !== entries[i - 1]!.rank + 1n || e.score > entries[i - 1]!.score))
            problems.push(`${board}: ${e.playerId} after ${entries[i - 1]!.playerId}`);
        });
        if (new Set(entries.map((e) => e.playerId)).size !== entries.length) problems.push(`${board}: a team twice`);
        if (a.members && a.entry) {
          const counted = a.members.filter((m) => m.counted).reduce((s, m) => s + m.points, 0n);
          if (counted !== a.entry.score) problems.push(`${board} ${a.entry.playerId}: ${a.entry.score}, its counted members ${counted}`);
          if (board === "squads" && a.members.filter((m) => m.counted).length > BEST_K)
            problems.push(`squads: more than ${BEST_K} counted`);
        }
      }
    });
    // both routers' derivers hold partitions of the log when the second one dies
    for (const from = Date.now(); ; await sleep(250)) {
      const held = await groupMemberPartitions(client, teamDeriverGroupOf(c.ns.topic));
      if (held.length === 2 && held.every((n) => n > 0)) break;
      if (Date.now() - from > 30_000) throw new Error(`the derivers' group: ${JSON.stringify(held)} partitions per member`);
    }
    const switchers = PLAYERS.filter((_, i) => i % 3 === 0);
    let written = 0;
    const writing = PLAYERS.map(async (p, i) => {
      for (let k = 0; k < WRITES; k++) {
        const value = 1 + ((i * 31 + k * 7) % 90);
        const got = await retried(() =>
          ingests[(i + k) % 2]!.submitScores({ updates: [{ board: "solo", playerId: p, value: BigInt(value) }] }),
        );
        if ("code" in got) throw new Error(`${p}: ${got.code} ${got.details}`);
        points.set(p, (points.get(p) ?? 0) + value);
        if (k === 2 && switchers.includes(p)) await setTeam(k % 2, "clans", p, CLANS[(i + 1 + k) % CLANS.length]!);
        if (k === 3 && i % 10 === 0) await setTeam(k % 2, "squads", p, ""); // leaves its squad
        written++;
        await sleep(150);
      }
    });
    // the second router dies mid-stream: its deriver's partitions go to the first one's
    await sleep(800);
    secondUp = false; // the readers leave it first
    await sleep(300);
    const killed = await router2.kill();
    const writtenAtKill = written;
    await Promise.all(writing);
    expect(writtenAtKill).toBeLessThan(PLAYERS.length * WRITES); // killed mid-stream
    expect(killed).toBeDefined();
    await sleep(300);
    stop = true;
    await Promise.all(readers);
    expect(problems).toEqual([]);
    expect(answers).toBeGreaterThan(0);

    // an erased member leaves its teams (DeletePlayer of every board): its points go with it
    const erased = PLAYERS.find((_p, i) => i % 3 === 1 && i % 10 !== 0)!;
    await c.ingest.deletePlayer({ playerId: erased, boards: [] });
    points.delete(erased);
    clanOf.delete(erased);
    squadOf.delete(erased);

    /** Every team's entry and members equal the oracle's, once the deriver caught up (within 60 s). */
    const exact = async (when: string) => {
      for (const [board, teamOf, k] of [
        ["clans", clanOf, 0],
        ["squads", squadOf, BEST_K],
      ] as const) {
        const want = teamsOf(points, new Map([...teamOf].filter(([, t]) => t !== "")), k);
        const wanted = [...want]
          .map(([team, t]) => [team, t.points])
          .sort((a, b) => Number(b[1]) - Number(a[1]) || String(a[0]).localeCompare(String(b[0])));
        let got: Array<[string, number]> = [];
        for (const from = Date.now(); ; await sleep(500)) {
          const top = await routers[0]!.getTop({ board, limit: 100 });
          got = top.entries.map((e) => [e.playerId, Number(e.score)] as [string, number]);
          const sorted = [...got].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
          if (JSON.stringify(sorted) === JSON.stringify(wanted)) break;
          if (Date.now() - from > 60_000) break;
        }
        expect(
          [...got].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
          `${when}: ${board}`,
        ).toEqual(wanted);
        for (const [team, t] of want) {
          const a = await routers[0]!.getTeam({ board, teamId: team });
          expect(
            [Number(a.entry!.score), a.members.map((m) => [m.playerId, Number(m.points), m.counted])],
            `${when}: ${board} ${team}`,
          ).toEqual([t.points, t.members.map((m, i) => [m.playerId, m.points, k === 0 || i < k])]);
        }
      }
    };
    await exact("at rest");
    console.log(
      `teams: ${PLAYERS.length} players x ${WRITES} writes, ${switchers.length} clan switches, a router killed after ${writtenAtKill} of them; ${answers} answers checked`,
    );

    // every shard rebuilt from the log: the same teams
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    const ends = await client.endOffsets(c.ns.topic);
    await c.waitApplied([...ends].filter(([, o]) => o > 0n).map(([partition, o]) => ({ partition, offset: o - 1n }) as PartitionOffset));
    await exact("after a rebuild");
  }, 300_000);
});
