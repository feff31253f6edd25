// Tournaments (issue #30, item 4) against the real processes: two ingest processes and two routers
// over three shards. 100 players race to join a tournament of 40 places through both ingests: exactly
// 40 are admitted, the rest refused "full", and the members are the first 40 joins of the log's join
// partition. Every member then sends 5 writes at once through both ingests while readers check
// every standing, page and GetTournament answer through both routers: exactly max_attempts (3) count
// per member, the others refused naming the limit, as an oracle reading the log decides; non-members
// are refused. Listing by category, pages and refusals; a tournament without joins. After a rebuild
// of every shard the members, attempts and board are the same. At the end joins and writes are
// refused naming the end, and the close event carries the final standings and the rewards by rank.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { ClientOf } from "@ladder/client/grpc-stub";
import { LogClient } from "@ladder/log/log-client";
import { encodeTournamentJoin } from "@ladder/model/score-event";
import { joinPartitionOf } from "@ladder/model/tournaments";
import { silentLogger } from "@ladder/platform/logger";
import type { RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import type { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { TournamentState } from "@ladder/proto/leaderboard/v1/tournament_pb";
import { outcome, startTwinCluster, TEST_TOKENS, untilIngestKnows } from "./cluster-harness.js";
import { rulesPageProblems, type Rules } from "./rules-oracle.js";
import { readTopic, tournamentOfLog } from "./tournament-oracle.js";
import { builtEntry } from "@ladder/deploy/built-entry";

/** The CLI as `npm run cli` runs it: its build (built-entry.ts). */
const CLI = builtEntry("cli/src/main.ts");

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

const MAX_SIZE = 40;
const JOINERS = 100;
const MAX_ATTEMPTS = 3;
const TRIES = 5;
// long enough for the joins and the writes (about 9 s at a load average of 30), not much more: the
// test waits for the end to check the refusals and the close
const DURATION_MS = 45_000;
const GRACE_MS = 1000;
const RULES: Rules = {
  lowerIsBetter: false,
  tie: "earliest",
  minPoints: 0,
  maxPoints: 1_000_000,
  resolutionMs: 1000,
  epochMs: Date.UTC(2026, 0, 1),
};
const plain = (e: Entry) => ({ playerId: e.playerId, score: Number(e.score), reachedAtMs: Number(e.reachedAtMs), rank: Number(e.rank) });
const run = promisify(execFile);
const RETRY = new Set<number>([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);

/** `call` again while it is refused for a while (a starved shard on a busy machine): joins and reads may be repeated. */
async function settled<T>(call: () => Promise<T>): Promise<{ ok: T } | { code: number; details: string }> {
  for (let i = 0; ; i++) {
    const o = await outcome(call());
    if ("ok" in o || !RETRY.has(o.code) || i >= 20) return o;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The members of tournament period key `stored` on every shard's Redis ("<key>!join"). */
async function joinedOnShards(redisUrls: string[], prefix: string, stored: string): Promise<string[]> {
  const out: string[] = [];
  for (const url of redisUrls) {
    const r = new Redis(url);
    out.push(...(await r.zrange(`${prefix}board:${stored}!join`, "0", "-1")));
    r.disconnect();
  }
  return out.sort();
}

/** Resolves once `ingest` knows tournament `board` (it follows the definitions: a moment after CreateBoard). */
async function untilKnown(ingest: ClientOf<typeof IngestService>, board: string): Promise<void> {
  for (const from = Date.now(); ; ) {
    const got = await outcome(ingest.joinTournament({ board, playerId: "probe" }));
    if ("ok" in got) return;
    if (Date.now() - from > 30_000) throw new Error(`ingest does not know ${board}: ${got.details}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("tournaments", () => {
  it("admits exactly max_size of racing joiners, counts exactly max_attempts, answers exact standings, closes with rewards", async () => {
    const { c, admin, ingests, routers, redisUrls } = await startTwinCluster("tournaments", cleanups);

    const start = Date.now() - 2000;
    const end = start + DURATION_MS;
    const created = await admin.createBoard({
      board: {
        name: "cup",
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 1_000_000n,
          resolutionMs: 1000,
          period: PeriodKind.TOURNAMENT,
          tournament: {
            category: "weekend",
            startMs: BigInt(start),
            durationMs: BigInt(DURATION_MS),
            joinRequired: true,
            maxSize: MAX_SIZE,
            maxAttempts: MAX_ATTEMPTS,
          },
          close: {
            graceMs: BigInt(GRACE_MS),
            topK: 5,
            rewards: [
              { reward: "gold", fromRank: 1n },
              { reward: "silver", fromRank: 2n, toRank: 10n },
              { reward: "top25", topPercent: 25 },
            ],
          },
        },
      },
    });
    expect(Number(created.board!.rules!.tournament!.endMs)).toBe(end);
    const stored = `cup#${created.board!.rules!.generation}@T`;
    const tournament = (t: object) => ({ maxPoints: 1_000_000n, resolutionMs: 1000, period: PeriodKind.TOURNAMENT, tournament: t });
    await admin.createBoard({
      board: {
        name: "free-for-all",
        defaultOp: Operation.BEST,
        rules: tournament({ category: "daily", startMs: BigInt(start), durationMs: 3_600_000n, maxAttempts: 2 }),
      },
    });
    await admin.createBoard({
      board: {
        name: "later",
        rules: tournament({ category: "weekend", startMs: BigInt(start + 86_400_000), durationMs: 3_600_000n, joinRequired: true }),
      },
    });
    const spare = await admin.createBoard({
      board: {
        name: "spare",
        rules: tournament({ category: "daily", startMs: BigInt(start), durationMs: 3_600_000n, joinRequired: true }),
      },
    });
    await admin.createBoard({
      board: {
        name: "over",
        rules: tournament({ category: "weekend", startMs: BigInt(start - 7_200_000), durationMs: 3_600_000n, joinRequired: true }),
      },
    });
    for (const ingest of ingests) await untilKnown(ingest, "later");

    // refusals before anyone joined: nothing of them counts
    const write = (ingest: number, playerId: string, value: number, eventId: string, timestampMs = Date.now()) =>
      ingests[ingest]!.submitScores({
        updates: [{ board: "cup", playerId, value: BigInt(value), eventId, timestampMs: BigInt(timestampMs) }],
      });
    const refusal = async (p: Promise<unknown>) => {
      const o = await outcome(p);
      return "code" in o ? [o.code, o.details] : ["ok"];
    };
    expect(await refusal(write(0, "stranger", 5, "s-0"))).toEqual([
      status.FAILED_PRECONDITION,
      'player "stranger" is not a member of tournament "cup": JoinTournament first (join_required)',
    ]);
    expect(await refusal(write(1, "stranger", 5, "s-1", start - 1))).toEqual([
      status.FAILED_PRECONDITION,
      expect.stringContaining(`is before tournament "cup" starts (${new Date(start).toISOString()})`),
    ]);
    expect(await refusal(write(0, "stranger", 5, "s-2", end))).toEqual([
      status.FAILED_PRECONDITION,
      expect.stringContaining(`at or after tournament "cup" ended (${new Date(end).toISOString()})`),
    ]);
    expect(
      await refusal(
        c.ingest.submitScores({
          updates: [
            { board: "cup", playerId: "a", value: 1n },
            { board: "cup", playerId: "b", value: 1n },
          ],
        }),
      ),
    ).toEqual([status.INVALID_ARGUMENT, expect.stringContaining('an update of tournament "cup" is alone in its batch')]);
    expect(await refusal(c.ingest.joinTournament({ board: "free-for-all", playerId: "a" }))).toEqual([
      status.FAILED_PRECONDITION,
      'tournament "free-for-all" takes no joins (join_required is false): anyone may write',
    ]);

    // 100 joiners race through both ingests: exactly 40 admitted, the rest refused "full"
    const joinsFrom = Date.now();
    const players = Array.from({ length: JOINERS }, (_, i) => `p-${i}`);
    const joins = await Promise.all(players.map((p, i) => settled(() => ingests[i % 2]!.joinTournament({ board: "cup", playerId: p }))));
    const joinsMs = Date.now() - joinsFrom;
    const admitted = players.filter((_, i) => "ok" in joins[i]!);
    const full = joins.flatMap((j, i) => ("code" in j ? [[players[i], j.code, j.details] as const] : []));
    expect(admitted).toHaveLength(MAX_SIZE);
    expect(full).toHaveLength(JOINERS - MAX_SIZE);
    for (const [p, code, details] of full) {
      expect(code, details).toBe(status.RESOURCE_EXHAUSTED);
      expect(details).toBe(`tournament "cup" is full: its max_size of ${MAX_SIZE} members joined before player "${p}"`);
    }
    // joining again answers as the first did: a member is one, the others are still refused
    const again = await settled(() => ingests[1]!.joinTournament({ board: "cup", playerId: admitted[0]! }));
    expect("ok" in again && [again.ok.alreadyMember, Number(again.ok.memberCount)]).toEqual([true, MAX_SIZE]);
    expect(await refusal(ingests[0]!.joinTournament({ board: "cup", playerId: full[0]![0]! }))).toEqual([
      status.RESOURCE_EXHAUSTED,
      full[0]![2],
    ]);
    expect(await joinedOnShards(redisUrls, c.ns.keyPrefix, stored)).toEqual([...admitted].sort());

    // listing by category, a page at a time: by start, the ended one left out
    const listed: string[] = [];
    let token = "";
    do {
      const page = await routers[1]!.listTournaments({ category: "weekend", pageSize: 1, pageToken: token });
      listed.push(...page.tournaments.map((t) => `${t.board!.name}:${t.memberCount}:${TournamentState[t.state]}`));
      token = page.nextPageToken;
    } while (token !== "");
    expect(listed).toEqual([`cup:${MAX_SIZE}:ACTIVE`, "later:1:UPCOMING"]);
    expect((await routers[0]!.listTournaments({ category: "daily" })).tournaments.map((t) => t.board!.name)).toEqual([
      "free-for-all",
      "spare",
    ]);
    expect((await routers[0]!.listTournaments({})).tournaments.map((t) => t.board!.name)).toEqual([
      "cup",
      "free-for-all",
      "spare",
      "later",
    ]);
    expect(await refusal(routers[0]!.listTournaments({ pageToken: "nope" }))).toEqual([
      status.INVALID_ARGUMENT,
      "page_token: not a token of ListTournaments (pass next_page_token as it came)",
    ]);
    expect(await refusal(routers[0]!.listTournaments({ pageSize: 101 }))).toEqual([
      status.INVALID_ARGUMENT,
      "page_size: must be 1..100 (0: 20), got 101",
    ]);

    // every member sends 5 writes at once through both ingests while readers check every answer
    const problems: string[] = [];
    let answers = 0;
    let stop = false;
    const readers = Array.from({ length: 3 }, async (_, r) => {
      for (let n = r; !stop; n++) {
        const router = routers[n % 2]!;
        const who = admitted[n % MAX_SIZE]!;
        if (n % 3 === 2) {
          const got = await settled(() => router.getTournament({ board: "cup", playerId: who }));
          if ("code" in got) {
            problems.push(`GetTournament: ${got.code} ${got.details}`);
            continue;
          }
          const t = got.ok;
          answers++;
          if (!t.member || t.attemptsUsed > MAX_ATTEMPTS || t.attemptsUsed + t.attemptsLeft !== MAX_ATTEMPTS)
            problems.push(`GetTournament ${who}: member ${t.member}, ${t.attemptsUsed} used, ${t.attemptsLeft} left`);
          if (Number(t.tournament!.memberCount) !== MAX_SIZE) problems.push(`GetTournament: ${t.tournament!.memberCount} members`);
          if (t.entry) problems.push(...rulesPageProblems(RULES, [plain(t.entry)], Number(t.total)));
          continue;
        }
        const got = await settled<{ entries?: Entry[]; entry?: Entry; total: bigint }>(() =>
          n % 3 === 0 ? router.getTop({ board: "cup", limit: 50 }) : router.getRank({ board: "cup", playerId: who }),
        );
        if ("code" in got) {
          if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE) problems.push(`code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        const entries = (got.ok.entries ?? [got.ok.entry!]).map(plain);
        problems.push(...rulesPageProblems(RULES, entries, Number(got.ok.total)));
        if (entries.some((e) => !admitted.includes(e.playerId))) problems.push(`a non-member listed: ${entries.map((e) => e.playerId)}`);
      }
    });
    const sent = admitted.flatMap((p, i) =>
      Array.from({ length: TRIES }, (_, k) => ({ p, k, ingest: (i + k) % 2, value: 1 + ((i * 31 + k * 17) % 100), id: `${p}-w${k}` })),
    );
    const strangers = full.slice(0, 10).map(([p]) => ({ p: p!, k: 0, ingest: 0, value: 7, id: `${p}-w0` }));
    const writesFrom = Date.now();
    // in waves of 8 members (each member's 5 writes at once), so that the readers see the board move
    const all = [...sent, ...strangers];
    const written: Array<Awaited<ReturnType<typeof outcome>>> = [];
    for (let wave = 0; wave * 8 < MAX_SIZE; wave++) {
      const members = new Set(admitted.slice(wave * 8, wave * 8 + 8));
      const now = all.filter((w) => members.has(w.p) || (wave === 0 && !admitted.includes(w.p)));
      const answered = await Promise.all(now.map((w) => outcome(write(w.ingest, w.p, w.value, w.id))));
      now.forEach((w, i) => void (written[all.indexOf(w)] = answered[i]!));
      await new Promise((r) => setTimeout(r, 500));
    }
    const writesMs = Date.now() - writesFrom;
    const leftMs = end - Date.now();
    stop = true;
    await Promise.all(readers);
    expect(problems).toEqual([]);
    expect(answers).toBeGreaterThan(0);
    const ok = new Set<string>();
    const tooMany = new Set<string>();
    all.forEach((w, i) => {
      const o = written[i]!;
      if ("ok" in o) ok.add(w.id);
      else if (
        o.details ===
        `player "${w.p}" has used its max_attempts of ${MAX_ATTEMPTS} in tournament "cup": the write is refused, the entry unchanged`
      )
        tooMany.add(w.id);
      else
        expect([w.p, o.code, o.details]).toEqual([
          w.p,
          status.FAILED_PRECONDITION,
          `player "${w.p}" is not a member of tournament "cup": JoinTournament first (join_required)`,
        ]);
    });
    for (const p of admitted) expect([p, sent.filter((w) => w.p === p && ok.has(w.id)).length]).toEqual([p, MAX_ATTEMPTS]);
    expect(tooMany.size).toBe(MAX_SIZE * (TRIES - MAX_ATTEMPTS));
    console.log(
      `tournaments: ${JOINERS} joins in ${joinsMs} ms (${admitted.length} admitted, ${full.length} full); ${written.length} writes in ${writesMs} ms (${ok.size} counted, ${tooMany.size} past the attempts); ${answers} answers checked; ${leftMs} ms before the end`,
    );

    // the oracle of the log decides the same joins, attempts and board
    const client = LogClient.unconnected(inject("kafkaBrokers"), "test-tournaments", log);
    const oracleOf = async () =>
      tournamentOfLog(await readTopic(client, c.ns.topic), {
        board: "cup",
        rules: RULES,
        maxSize: MAX_SIZE,
        maxAttempts: MAX_ATTEMPTS,
        endMs: end,
        joinRequired: true,
      });
    const oracle = await oracleOf();
    expect([...oracle.members].sort()).toEqual([...admitted].sort());
    expect([...oracle.counted.values()].flat().sort()).toEqual([...ok].sort());
    for (const id of tooMany) expect(oracle.refused.has(id), id).toBe(true);
    const exact = async (when: string) => {
      for (const router of routers) {
        const got = await router.getTop({ board: "cup", limit: 1000 });
        expect(got.entries.map(plain), when).toEqual(oracle.board.sorted());
      }
      expect(await joinedOnShards(redisUrls, c.ns.keyPrefix, stored), when).toEqual([...admitted].sort());
      for (const p of admitted.slice(0, 10)) {
        const t = await routers[1]!.getTournament({ board: "cup", playerId: p });
        const mine = oracle.board.sorted().find((e) => e.playerId === p)!;
        expect([t.member, t.attemptsUsed, t.attemptsLeft, plain(t.entry!), Number(t.total)], when).toEqual([
          true,
          MAX_ATTEMPTS,
          0,
          mine,
          MAX_SIZE,
        ]);
      }
      const stranger = await routers[0]!.getTournament({ board: "cup", playerId: full[0]![0]! });
      expect([stranger.member, stranger.attemptsUsed, stranger.entry], when).toEqual([false, 0, undefined]);
    };
    await exact("at rest");

    // a tournament without joins: anyone writes, within its attempts
    const free = (value: number) =>
      c.ingest.submitScores({ updates: [{ board: "free-for-all", playerId: "walk-in", value: BigInt(value) }] });
    expect([await refusal(free(5)), await refusal(free(9)), await refusal(free(50))]).toEqual([
      ["ok"],
      ["ok"],
      [status.FAILED_PRECONDITION, expect.stringContaining("has used its max_attempts of 2")],
    ]);
    expect(Number((await c.router.getRank({ board: "free-for-all", playerId: "walk-in" })).entry!.score)).toBe(9);

    // an ingest that died between a join and its membership: the player is admitted but refused as a
    // non-member, until it joins again (the join record written here straight to the log, as it would have)
    const producer = await client.producer();
    const orphanJoin = encodeTournamentJoin("spare", "orphan", spare.board!.rules!, Date.now(), false);
    const [placed] = await producer.send(c.ns.topic, [{ key: "orphan", value: orphanJoin, partition: joinPartitionOf("spare", 12) }]);
    await producer.disconnect();
    await c.waitApplied([{ partition: placed!.partition, offset: BigInt(placed!.baseOffset) } as PartitionOffset]);
    const orphanWrite = () => c.ingest.submitScores({ updates: [{ board: "spare", playerId: "orphan", value: 3n }] });
    expect(await refusal(orphanWrite())).toEqual([status.FAILED_PRECONDITION, expect.stringContaining('player "orphan" is not a member')]);
    const before = await c.router.getTournament({ board: "spare", playerId: "orphan" });
    expect([Number(before.tournament!.memberCount), before.member]).toEqual([1, false]);
    const rejoined = await c.ingest.joinTournament({ board: "spare", playerId: "orphan" });
    expect([rejoined.alreadyMember, Number(rejoined.memberCount)]).toEqual([true, 1]);
    expect(await refusal(orphanWrite())).toEqual(["ok"]);

    // every shard rebuilt from the log: the same members, attempts and board
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    const ends = await client.endOffsets(c.ns.topic);
    await c.waitApplied([...ends].filter(([, o]) => o > 0n).map(([partition, o]) => ({ partition, offset: o - 1n }) as PartitionOffset));
    await exact("after a rebuild");

    // at the end: joins and writes refused naming it; then the close event with the rewards
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now() + 50)));
    expect(await refusal(c.ingest.joinTournament({ board: "cup", playerId: "late" }))).toEqual([
      status.FAILED_PRECONDITION,
      `tournament "cup" is closed to joins: it ended at ${new Date(end).toISOString()}`,
    ]);
    expect(await refusal(write(0, admitted[0]!, 1, "late-w"))).toEqual([
      status.FAILED_PRECONDITION,
      expect.stringContaining(`ended (${new Date(end).toISOString()})`),
    ]);
    let closes = await admin.listCloses({ board: "cup" });
    for (const from = Date.now(); closes.closes.length === 0; closes = await admin.listCloses({ board: "cup" })) {
      if (Date.now() - from > 60_000) throw new Error("no close event within 60 s of the close");
      await new Promise((r) => setTimeout(r, 500));
    }
    const [event] = closes.closes;
    const final = oracle.board.sorted();
    expect([event!.period, Number(event!.startMs), Number(event!.endMs), Number(event!.closeAtMs), Number(event!.size)]).toEqual([
      "T",
      start,
      end,
      end + GRACE_MS,
      final.length,
    ]);
    expect(event!.top.map(plain)).toEqual(final.slice(0, 5));
    const top25 = Math.ceil((final.length * 25) / 100);
    const expected = final
      .filter((e) => e.rank <= Math.max(10, top25))
      .map((e) => [e.playerId, e.rank, e.score, e.rank === 1 ? "gold" : e.rank <= 10 ? "silver" : "top25"]);
    expect(event!.rewards.map((r) => [r.playerId, Number(r.rank), Number(r.score), r.reward])).toEqual(expected);

    // the CLI's commands, as docs/tournaments.md shows them
    const cli = async (token: string, ...args: string[]) => {
      const where = ["--router", c.services.routerAddress, "--ingest", c.services.ingestAddress, "--token", token];
      const got = await run("node", [CLI, ...args, ...where], { cwd: join(import.meta.dirname, "..") }).catch(
        (err: { stdout: string; stderr: string }) => ({ stdout: err.stdout, stderr: err.stderr }),
      );
      return `${got.stdout}${got.stderr}`.trim();
    };
    const [rewards, size, attempts] = ["gold:1,silver:2-10,elite:top10%", "100", "3"];
    expect(
      await cli(
        TEST_TOKENS.admin,
        "tournaments",
        "create",
        "--board",
        "cup-1",
        "--category",
        "weekend",
        "--duration",
        "2h",
        "--max-size",
        size,
        "--max-attempts",
        attempts,
        "--default-op",
        "inc",
        "--close-grace",
        "1m",
        "--close-top",
        "5",
        "--rewards",
        rewards,
      ),
    ).toMatch(/^defined cup-1 \[weekend\]: .* to .*, 0\/100 members, 3 attempts each, 3 reward ranges, generation \d+$/);
    await untilIngestKnows(c, "cup-1");
    expect(await cli(TEST_TOKENS.write, "tournaments", "join", "--board", "cup-1", "--player", "alice")).toMatch(
      /^alice is now a member of cup-1 \(1 members; consistency token \S+\)$/,
    );
    expect(await cli(TEST_TOKENS.write, "submit", "--board", "cup-1", "--player", "alice", "--value", "120", "--op", "default")).toMatch(
      /^accepted 1 at partition \d+ offset \d+$/,
    );
    expect(await cli(TEST_TOKENS.write, "submit", "--board", "cup-1", "--player", "mallory", "--value", "5", "--op", "default")).toContain(
      'player "mallory" is not a member of tournament "cup-1"',
    );
    expect(await cli(TEST_TOKENS.read, "tournaments", "get", "--board", "cup-1", "--player", "alice")).toMatch(
      /\nalice: member, 1 attempt used, 2 left, rank 1 of 1 with 120$/,
    );
    expect(await cli(TEST_TOKENS.read, "tournaments", "list", "--category", "weekend")).toMatch(
      /^cup-1 \[weekend\]: ACTIVE, .*\nlater \[weekend\]: UPCOMING/,
    );
  }, 300_000);
});
