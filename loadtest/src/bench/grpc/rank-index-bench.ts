/**
 * Benchmark "rank-index": GetRank, GetRanks of 100 players and GetAround (±5) through the fan-out
 * (every shard read) and through the rank index (router/src/rank-index: the owners read, the shards
 * counted and the windows taken from the router's copies), on 3 and on 6 shards, each against its router's health check in the same
 * round, with the copies' build time, memory per player and freshness. Method: rank-index.md.
 */
import { readFile } from "node:fs/promises";
import { LadderClient } from "@ladder/client";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { GetAroundRequestSchema, GetRanksRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { distinctPlayers, playerId } from "../../workload/player-ids.js";
import type { Benchmark, BenchContext } from "../context.js";
import { pidCpu } from "../infra/cpu-meter.js";
import { lb, requireH2load } from "../infra/h2load.js";
import { costProbes, getRankOf, roundColumns, roundsTitle, routerRounds } from "../infra/h2load-rounds.js";
import { startIngestCluster } from "../infra/ingest-cluster.js";
import { startRouter } from "../infra/router-process.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { ms, pct, size, whole } from "../output/format.js";
import { tableOf } from "../output/table.js";

export const BOARD = "rank-index-bench";
/** The router's count of GetRank answers, labelled by where each came from (source="index" or "shard"). */
const ANSWERS = "ladder_router_rank_index_total";

/** The series `name` with `label` summed from a /metrics page. */
const sumOf = (page: string, name: string, label: string) =>
  [...page.matchAll(new RegExp(`^${name}\\{[^}]*${label}[^}]*\\} (\\S+)$`, "gm"))].reduce((n, m) => n + Number(m[1]), 0);

/** The smallest bucket bound (s) holding quantile q of a histogram's observations between two /metrics pages. */
function quantileOf(before: string, after: string, name: string, q: number): number {
  const counts = (page: string) => [...page.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, "gm"))];
  const a = counts(before);
  const b = counts(after).map((m, i) => ({ le: Number(m[1]), n: Number(m[2]) - Number(a[i]?.[2] ?? 0) }));
  return b.find((x) => x.n >= q * (b.at(-1)?.n ?? 0))?.le ?? NaN;
}

/** GetAround's radius: the entries each side of the player. */
const AROUND = 5;
/** Players asked together by GetRanks: a friends list. */
const FRIENDS = 100;

/** The round's player and FRIENDS - 1 others spread over the board (distinct: steps of a prime coprime with the sizes used). */
const friendsOf = (id: string, players: number) => {
  const first = Number(id.slice(id.indexOf(":") + 1));
  return [id, ...Array.from({ length: FRIENDS - 1 }, (_, j) => playerId((first + (j + 1) * 104_729) % players))];
};

const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
const rssBytes = async (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

export const rankIndexBenchmark: Benchmark = {
  name: "rank-index",
  method: "grpc/rank-index.md",
  title: "GetRank, GetRanks and GetAround through the rank index vs the fan-out, 3 and 6 shards",
  async run(ctx) {
    const h2loadVersion = await requireH2load();
    const p = ctx.plan.rankIndex;
    const results = [];
    for (const shards of p.shards) results.push(await onShards(ctx, shards));
    const rows = results.flatMap((r) => r.rows);
    const table = tableOf(roundsTitle("GetRank, GetRanks and GetAround vs their router's health check", p), rows, [
      ["shards", (r) => String(r.shards)],
      ["router", (r) => r.router],
      ...roundColumns<(typeof rows)[number]>("Redis CPU µs/call"),
    ]);
    const copies = tableOf("The rank index's copies", results, [
      ["shards", (r) => String(r.shards)],
      ["players", (r) => size(r.players)],
      ["built in s", (r) => r.buildS.toFixed(1)],
      ["router RSS bytes per player", (r) => whole(r.bytesPerPlayer)],
      [`change lag p50 / p99 ms (${p.writesPerS} updates/s)`, (r) => `≤ ${ms(r.lagP50S * 1000)} / ≤ ${ms(r.lagP99S * 1000)}`],
      ["counts from the copies under h2load", (r) => pct(r.fromIndex)],
      [
        "Redis µs/update without / with the stream",
        (r) => `${whole(r.redisUsPerUpdate.withoutStream)} / ${whole(r.redisUsPerUpdate.withStream)}`,
      ],
    ]);
    return { figures: { plan: p, h2loadVersion, results }, tables: [table, copies] };
  },
};

async function onShards(ctx: BenchContext, shards: number) {
  const p = ctx.plan.rankIndex;
  ctx.say(`starting a ${shards}-shard cluster; ${size(p.players)} players through Kafka on "${BOARD}"`);
  const cluster = await startIngestCluster(ctx, { shards });
  try {
    const seeded = await seedThroughKafka(ctx, cluster, BOARD, p.players);
    /** `writesPerS` updates a second for `seconds` through ingest; Redis CPU (all shards) per update, the applying included. */
    const writeLoad = async (seconds: number) => {
      const [cpu, until] = [await cluster.cpu.redis(), performance.now() + seconds * 1000];
      let sent = 0;
      for (let i = 0; performance.now() < until; i++) {
        const ids = Array.from({ length: p.writesPerS / 10 }, (_, j) => playerId((i * 997 + j * 7919) % p.players));
        const updates = ids.map((id) => ({ board: BOARD, playerId: id, op: Operation.INCREMENT, value: 1n }));
        await Promise.all([cluster.writer.ingest().submitScores({ updates }), new Promise((r) => setTimeout(r, 100))]);
        sent += updates.length;
      }
      await new Promise((r) => setTimeout(r, 1_000));
      return ((await cluster.cpu.redis()) - cpu) / sent;
    };
    // the same updates before any router follows the shards' change streams: what appending every change costs Redis
    const withoutStream = await writeLoad(p.writeS);
    const indexedEnv = { ...cluster.services.env, LADDER_RANK_INDEX_BOARDS: BOARD };
    const indexed = await startRouter(ctx, `router (rank index, ${shards} shards)`, indexedEnv);
    const players = distinctPlayers(ctx.plan.seed, 700 + shards, p.rounds, p.players);
    // the copies start with the board's first GetRank: how long until they answer, and what they cost in memory
    const rssBefore = await rssBytes(indexed.pid);
    const client = new LadderClient({ router: indexed.address, timeoutMs: 10_000 });
    const main = new LadderClient({ router: cluster.services.routerAddress, timeoutMs: 10_000 });
    const started = performance.now();
    for (;;) {
      await client.leaderboard.getRank({ board: BOARD, playerId: players[0]! });
      if (sumOf(await scrape(indexed.metricsPort), ANSWERS, 'source="index"') > 0) break;
      if (performance.now() - started > 600_000) throw new Error("the rank index's copies did not answer within 10 min");
      await new Promise((r) => setTimeout(r, 100));
    }
    const buildS = (performance.now() - started) / 1000;
    const bytesPerPlayer = ((await rssBytes(indexed.pid)) - rssBefore) / p.players;
    // both routers answer alike at rest: the same rank and total for each round's player
    for (const id of players) {
      const [a, b] = await Promise.all([
        main.leaderboard.getRank({ board: BOARD, playerId: id }),
        client.leaderboard.getRank({ board: BOARD, playerId: id }),
      ]);
      if (a.entry?.rank !== b.entry?.rank || a.total !== b.total)
        throw new Error(`GetRank of ${id}: fan-out ${a.entry?.rank} of ${a.total}, rank index ${b.entry?.rank} of ${b.total}`);
      const friends = friendsOf(id, p.players);
      const [x, y] = await Promise.all([
        main.leaderboard.getRanks({ board: BOARD, playerIds: friends }),
        client.leaderboard.getRanks({ board: BOARD, playerIds: friends }),
      ]);
      const ranks = (r: typeof x) => `${r.entries.map((e) => `${e.entry?.playerId}=${e.entry?.rank}`).join(",")} of ${r.total}`;
      if (x.entries.length !== FRIENDS || ranks(x) !== ranks(y))
        throw new Error(
          `GetRanks of ${id}'s friends: fan-out ${x.entries.length} found, the two routers ${ranks(x) === ranks(y) ? "agree" : "differ"}`,
        );
      const [u, v] = await Promise.all([
        main.leaderboard.getAround({ board: BOARD, playerId: id, radius: AROUND }),
        client.leaderboard.getAround({ board: BOARD, playerId: id, radius: AROUND }),
      ]);
      const page = (r: typeof u) => `${r.entries.map((e) => `${e.playerId}=${e.rank}@${e.score}`).join(",")} of ${r.total}`;
      if (!u.entries.some((e) => e.playerId === id) || page(u) !== page(v))
        throw new Error(`GetAround of ${id}: fan-out ${page(u)}, rank index ${page(v)}`);
    }
    const probes = costProbes(cluster);
    const routers = {
      "fan-out": { address: cluster.services.routerAddress, probes },
      "rank index": { address: indexed.address, probes: { ...probes, routerS: pidCpu(indexed.pid) } },
    };
    const counted = await scrape(indexed.metricsPort);
    const questionsOf = (id: string) => [
      ...getRankOf(BOARD)(id),
      { label: `GetRanks (${FRIENDS})`, ...lb("GetRanks", GetRanksRequestSchema, { board: BOARD, playerIds: friendsOf(id, p.players) }) },
      { label: `GetAround (±${AROUND})`, ...lb("GetAround", GetAroundRequestSchema, { board: BOARD, playerId: id, radius: AROUND }) },
    ];
    const { rows } = await routerRounds(ctx, p, { probes, routers, questionsOf, players, prefix: `${shards} shards, ` });
    const afterRuns = await scrape(indexed.metricsPort);
    const counts = (source: string) => sumOf(afterRuns, ANSWERS, `source="${source}"`) - sumOf(counted, ANSWERS, `source="${source}"`);
    const fromIndex = counts("index") / (counts("index") + counts("shard"));
    // freshness: how long after a shard appended each batch's last change the copy took it
    const lagBefore = await scrape(indexed.metricsPort);
    const withStream = await writeLoad(p.writeS);
    const lagAfter = await scrape(indexed.metricsPort);
    client.close();
    main.close();
    await indexed.stop();
    const lag = (q: number) => quantileOf(lagBefore, lagAfter, "ladder_router_rank_index_lag_seconds", q);
    return {
      shards,
      players: p.players,
      seeded,
      buildS,
      bytesPerPlayer,
      fromIndex,
      lagP50S: lag(0.5),
      lagP99S: lag(0.99),
      redisUsPerUpdate: { withoutStream: withoutStream * 1e6, withStream: withStream * 1e6 },
      rows: rows.map((r) => ({ shards, ...r })),
    };
  } finally {
    await cluster.stop();
  }
}
