// Push streams (issue #12, item 1) on the real processes: WatchPlayer streams of static and moving
// players and WatchTop streams, while a writer moves a dozen hot players (INCREMENT) and a shard is
// rebuilt under them. Checked on every message, against a brute-force oracle of the board:
//   - each rank is the watched player's exact rank at some instant: a static player's rank lies in
//     [1 + statics ahead, that + hot players] (only hot players move), and a hot player's in the
//     same bounds for the score it shows; totals equal the board's size;
//   - ranks move the right way: between two messages of a static player, its rank changes by
//     exactly (players that overtook it) - (players it passed), as the message's events say;
//   - every top message is a whole, ordered top with consecutive ranks and statics showing their
//     own scores;
//   - the last message of every stream equals the board once writes stop (GetRank, GetTop);
// and after a rebuild swaps a shard's data under the watchers, they say they were resynced and
// stay exact; a stream resumed with a token continues its sequence, on another router sharing the
// cluster's stream secret too, while a crafted, truncated or another stream's token is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { spawnService, type Started } from "@ladder/deploy/spawn-service";
import { startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import {
  LeaderboardService,
  PlayerEvent_Kind as Kind,
  type WatchPlayerResponse,
  type WatchTopResponse,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { aheadOf, order, seeded, type Standing } from "./moving-board.js";
import { startTestCluster, TEST_STREAM_SECRET, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const BOARD = "pushed";
const STATIC = 150;
const HOT = 12;
const TOTAL = STATIC + HOT;
const HOT_MAX = 1500;
const log = silentLogger();

const hotIds = Array.from({ length: HOT }, (_, i) => `h${String(i).padStart(2, "0")}`);
const isHot = new Set(hotIds);
const { rand, randInt } = seeded(31_2026);

let dataDir: string;
let redis: RedisServer[] = [];
let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
const statics: Standing[] = [];
const staticById = new Map<string, Standing>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "ladder-push-"));
  redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir, `r${i}`), persist: false, log }))); // the rebuild swaps databases
  c = await startTestCluster("push", { redisUrls: redis.map((r) => r.url), settings: { LADDER_SNAPSHOTS: "0" } });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
}, 180_000);
afterAll(async () => {
  admin?.close();
  await c?.stop();
  await Promise.all(redis.map((r) => r.stop()));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const staticAhead = (e: Standing) => aheadOf(statics, e);

/** Collects a stream's messages until `stop` is aborted. */
function collect<T>(stream: AsyncIterable<T>, into: T[], errors: string[]): Promise<void> {
  return (async () => {
    try {
      for await (const m of stream) into.push(m);
    } catch (err) {
      const e = err as { code?: number; details?: string };
      if (e.code !== 1) errors.push(`stream ended: ${e.code} ${e.details}`); // 1: CANCELLED, by us
    }
  })();
}

describe("push streams", () => {
  it("every WatchPlayer and WatchTop message is exact at some instant, ranks move as the events say, and the last message is the final board, across a rebuild", async () => {
    const base = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
    for (let i = 0; i < STATIC; i++)
      statics.push({ playerId: `s${String(i).padStart(3, "0")}`, points: 10 * Math.floor(i / 2), reachedAtMs: base + (i % 3) * 60_000 });
    statics.sort(order);
    for (const s of statics) staticById.set(s.playerId, s);
    const walk = hotIds.map(() => randInt(0, HOT_MAX));
    let token = (
      await c.ingest.submitScores({
        updates: [
          ...statics.map((s) => ({
            board: BOARD,
            playerId: s.playerId,
            op: Operation.SET,
            value: BigInt(s.points),
            timestampMs: BigInt(s.reachedAtMs),
          })),
          ...hotIds.map((playerId, i) => ({ board: BOARD, playerId, op: Operation.SET, value: BigInt(walk[i]!) })),
        ],
      })
    ).consistencyToken;
    await c.router.getRank({ board: BOARD, playerId: hotIds[0]!, consistencyToken: token });

    // watchers: 8 statics spread over the board, 4 hot players, 2 tops
    const watchedStatics = [5, 30, 60, 90, 110, 130, 145, 149].map((i) => statics[i]!.playerId);
    const watchedHot = hotIds.slice(0, 4);
    const controller = new AbortController();
    const players = new Map<string, WatchPlayerResponse[]>();
    const tops: WatchTopResponse[][] = [[], []];
    const errors: string[] = [];
    const running = [
      ...[...watchedStatics, ...watchedHot].map((playerId) => {
        const got: WatchPlayerResponse[] = [];
        players.set(playerId, got);
        return collect(
          c.router.watchPlayer({ board: BOARD, playerId, topK: 20, intervalMs: 50 }, { signal: controller.signal }),
          got,
          errors,
        );
      }),
      collect(c.router.watchTop({ board: BOARD, limit: 10, intervalMs: 50 }, { signal: controller.signal }), tops[0]!, errors),
      collect(c.router.watchTop({ board: BOARD, limit: 40, intervalMs: 200 }, { signal: controller.signal }), tops[1]!, errors),
    ];
    await new Promise((r) => setTimeout(r, 1000));

    let batches = 0;
    const write = async (rounds: number) => {
      for (let b = 0; b < rounds; b++) {
        const updates = hotIds.map((playerId, i) => {
          let step = randInt(1, 80) * (rand() < 0.5 ? -1 : 1);
          if (walk[i]! + step < 0 || walk[i]! + step > HOT_MAX) step = -step;
          walk[i]! += step;
          return { board: BOARD, playerId, op: Operation.INCREMENT, value: BigInt(step) };
        });
        token = (await c.ingest.submitScores({ updates })).consistencyToken;
        batches++;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await write(60);
    // a rebuild swaps shard-1's data under the watchers: they are read again (resynced) and stay exact
    for await (const p of admin.rebuildShards({ shardIds: ["shard-1"] })) void p;
    await write(60);
    await c.router.getRank({ board: BOARD, playerId: hotIds[0]!, consistencyToken: token });
    await new Promise((r) => setTimeout(r, 1500)); // the last messages (interval 50-200 ms) come
    controller.abort();
    await Promise.all(running);

    const problems: string[] = [...errors];
    let messages = 0;
    for (const [playerId, got] of players) {
      messages += got.length;
      if (got.length === 0) problems.push(`${playerId}: no message`);
      got.forEach((m, i) => {
        if (Number(m.sequence) !== i + 1) problems.push(`${playerId}: sequence ${m.sequence} at message ${i + 1}`);
        if (Number(m.total) !== TOTAL) problems.push(`${playerId}: total ${m.total}`);
        const e = m.entry;
        if (!e) return void problems.push(`${playerId}: no entry`);
        const shown = { playerId, points: Number(e.score), reachedAtMs: Number(e.reachedAtMs) };
        const lo = 1 + staticAhead(shown);
        const hi = lo + HOT - (isHot.has(playerId) ? 1 : 0);
        if (Number(e.rank) < lo || Number(e.rank) > hi)
          problems.push(
            `${playerId}: rank ${e.rank} outside [${lo}, ${hi}] for ${e.score} (message ${i + 1}${m.resynced ? ", resynced" : ""}; before it: ${got
              .slice(Math.max(0, i - 3), i)
              .map(
                (x) =>
                  `${x.entry?.rank}@${x.entry?.score}${x.resynced ? "R" : ""}[${x.events.map((v) => `${v.kind}:${v.otherPlayerId}`).join(" ")}]`,
              )
              .join(", ")}; its events: ${m.events.map((v) => `${v.kind}:${v.otherPlayerId}`).join(" ")})`,
          );
        if (!isHot.has(playerId) && Number(e.score) !== staticById.get(playerId)!.points) problems.push(`${playerId}: score ${e.score}`);
        const prev = got[i - 1]?.entry;
        if (prev && !isHot.has(playerId) && !m.resynced) {
          const moved = m.events.filter((x) => x.kind === Kind.OVERTAKEN).length - m.events.filter((x) => x.kind === Kind.PASSED).length;
          if (Number(e.rank) - Number(prev.rank) !== moved)
            problems.push(`${playerId}: rank ${prev.rank} -> ${e.rank} but its events say ${moved >= 0 ? "+" : ""}${moved}`);
        }
      });
      const final = await c.router.getRank({ board: BOARD, playerId, consistencyToken: token });
      const last = got.at(-1)?.entry;
      if (!last || last.rank !== final.entry!.rank || last.score !== final.entry!.score)
        problems.push(
          `${playerId}: last message rank ${last?.rank} score ${last?.score}, board ${final.entry!.rank} ${final.entry!.score}`,
        );
    }
    for (const [t, got] of tops.entries()) {
      const limit = t === 0 ? 10 : 40;
      messages += got.length;
      got.forEach((m) => {
        if (m.entries.length !== limit || Number(m.total) !== TOTAL)
          problems.push(`top ${limit}: ${m.entries.length} entries of ${m.total}`);
        m.entries.forEach((e, i) => {
          if (Number(e.rank) !== i + 1) problems.push(`top ${limit}: rank ${e.rank} at ${i + 1}`);
          if (!isHot.has(e.playerId) && Number(e.score) !== staticById.get(e.playerId)?.points)
            problems.push(`top ${limit}: ${e.playerId} at ${e.score}`);
          const prev = m.entries[i - 1];
          if (
            prev &&
            order(
              { playerId: prev.playerId, points: Number(prev.score), reachedAtMs: Number(prev.reachedAtMs) },
              { playerId: e.playerId, points: Number(e.score), reachedAtMs: Number(e.reachedAtMs) },
            ) >= 0
          )
            problems.push(`top ${limit}: out of order at ${i + 1}`);
        });
      });
      const final = await c.router.getTop({ board: BOARD, limit, consistencyToken: token });
      const last = got.at(-1);
      if (
        !last ||
        last.entries.map((e) => `${e.playerId}:${e.score}`).join() !== final.entries.map((e) => `${e.playerId}:${e.score}`).join()
      )
        problems.push(`top ${limit}: last message is not the final top`);
    }
    const resynced = [...players.values()].filter((got) => got.some((m) => m.resynced)).length;
    console.log(`[push] ${JSON.stringify({ batches, messages, resynced, perStream: [...players.values()].map((g) => g.length) })}`);
    expect(problems.slice(0, 8)).toEqual([]);
    expect(messages).toBeGreaterThan(100);
    expect(resynced, "watchers told they were read again after the rebuild").toBeGreaterThan(0);

    // resume: a stream opened with the last token continues the sequence, and sends nothing until a change
    const lastOf = players.get(watchedStatics[0]!)!.at(-1)!;
    const resumed: WatchPlayerResponse[] = [];
    const again = new AbortController();
    const stream = collect(
      c.router.watchPlayer(
        { board: BOARD, playerId: watchedStatics[0]!, intervalMs: 50, resumeToken: lastOf.resumeToken },
        { signal: again.signal },
      ),
      resumed,
      errors,
    );
    await new Promise((r) => setTimeout(r, 800));
    expect(resumed).toEqual([]);
    // h00 to the bottom, then just ahead of the watched player: one of the two moves it past
    await c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "h00", op: Operation.SET, value: 0n }] });
    await c.ingest.submitScores({
      updates: [{ board: BOARD, playerId: "h00", op: Operation.SET, value: BigInt(staticById.get(watchedStatics[0]!)!.points + 1) }],
    });
    for (let i = 0; i < 50 && resumed.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    again.abort();
    await stream;
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0]!.sequence)).toBe(Number(lastOf.sequence) + 1);
  });

  it("refuses a crafted, truncated or another stream's resume token with INVALID_ARGUMENT; a genuine one resumes on any router sharing the secret", async () => {
    const routers: Started[] = [];
    const startRouter = async (secret: string | undefined) => {
      const env: Record<string, string | undefined> = {
        ...process.env,
        ...c.services.envOf("router"),
        LADDER_ROUTER_LISTEN: "127.0.0.1:0",
      };
      env.LADDER_STREAM_SECRET = secret;
      const started = await spawnService({
        name: "router-2",
        entry: "router/src/main.ts",
        env,
        ready: "router listening",
        timeoutMs: 60_000,
        log,
      });
      routers.push(started);
      return createClient(LeaderboardService, `127.0.0.1:${started.port}`, undefined, {}, TEST_TOKENS.read);
    };
    /** The first message of a watch, or the code and details it ended with (a watch with nothing to send: "none"). */
    const first = async <T>(
      stream: AsyncIterable<T>,
      abort: AbortController,
      waitMs = 3000,
    ): Promise<T | { code: number; details: string } | "none"> => {
      const timer = setTimeout(() => abort.abort(), waitMs);
      try {
        for await (const m of stream) return m;
        return "none";
      } catch (err) {
        const e = err as { code: number; details: string };
        return e.code === 1 ? "none" : { code: e.code, details: e.details };
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
    };
    const watchTop = (client: typeof c.router, board: string, resumeToken: string, waitMs?: number) => {
      const abort = new AbortController();
      return first(client.watchTop({ board, limit: 5, intervalMs: 50, resumeToken }, { signal: abort.signal }), abort, waitMs);
    };
    try {
      const genuine = (await watchTop(c.router, BOARD, "")) as WatchTopResponse;
      expect(Number(genuine.sequence)).toBe(1);
      const player = (await (async () => {
        const abort = new AbortController();
        return first(c.router.watchPlayer({ board: BOARD, playerId: "h01", intervalMs: 50 }, { signal: abort.signal }), abort);
      })()) as WatchPlayerResponse;
      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
      const [payload, mac] = genuine.resumeToken.split(".") as [string, string];
      const forged = {
        crafted: b64({ s: 9999, h: "deadbeef" }),
        "crafted, under a genuine MAC": `${b64({ s: 9999, h: "deadbeef" })}.${mac}`,
        truncated: genuine.resumeToken.slice(0, -4),
        "payload alone": payload,
        "a WatchPlayer token": player.resumeToken,
      };
      for (const [what, token] of Object.entries(forged))
        expect(await watchTop(c.router, BOARD, token), what).toEqual({ code: 3, details: expect.stringMatching(/^resume_token: /) });
      expect(await watchTop(c.router, `${BOARD}-other`, genuine.resumeToken)).toMatchObject({ code: 3 });

      // a router of the same cluster takes it, and sends nothing until the top changes; one with a secret of its own refuses it
      const sibling = await startRouter(TEST_STREAM_SECRET);
      const loner = await startRouter(undefined);
      try {
        expect(await watchTop(loner, BOARD, genuine.resumeToken)).toMatchObject({
          code: 3,
          details: expect.stringMatching(/^resume_token: /),
        });
        expect(await watchTop(sibling, BOARD, genuine.resumeToken, 800)).toBe("none");
        const resumed = watchTop(sibling, BOARD, genuine.resumeToken, 10_000);
        await new Promise((r) => setTimeout(r, 500));
        await c.ingest.submitScores({
          updates: [{ board: BOARD, playerId: "resume-top", op: Operation.SET, value: BigInt(HOT_MAX * 100) }],
        });
        const next = (await resumed) as WatchTopResponse;
        expect(Number(next.sequence)).toBe(2);
        expect(next.entries[0]!.playerId).toBe("resume-top");
      } finally {
        sibling.close();
        loner.close();
      }
    } finally {
      await Promise.all(routers.map((r) => r.process.stop(10_000)));
    }
  });
});
