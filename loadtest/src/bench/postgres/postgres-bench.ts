/**
 * Benchmark "postgres": the textbook SQL leaderboard (top 10, exact rank by count) on the same
 * players, at the router's concurrency, set next to the router's figures. Method: postgres.md.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import type { Benchmark, BenchContext } from "../context.js";
import { ownProcessTree, selfCpu, treeCpu } from "../infra/cpu-meter.js";
import { measureClosedLoop, type Measurement } from "../infra/measure.js";
import { size } from "../output/format.js";
import { postgresTable, type PgRow } from "./postgres-table-view.js";
import type { ReadRow } from "../reads/reads-table.js";
import type { ClosedLoopPlan } from "../plan.js";
import { loadPlayers, type PgLoad } from "./postgres-table.js";
import { startBenchPostgres, type BenchPostgres } from "./postgres-server.js";

export const postgresBenchmark: Benchmark = {
  name: "postgres",
  method: "postgres/postgres.md",
  title: "PostgreSQL baseline",
  async run(ctx) {
    const plan = ctx.plan.postgres;
    ctx.say(`starting the bench's own PostgreSQL (initdb, shared_buffers ${plan.sharedBuffersMb} MB)`);
    const server = await startBenchPostgres({ ports: ctx.ports, cleanup: ctx.cleanup, sharedBuffersMb: plan.sharedBuffersMb });
    const disown = ownProcessTree(server.pid); // pg_ctl daemonizes it: not a descendant of the bench
    const admin = new pg.Client(server.connection);
    admin.on("error", () => {}); // the server going away (Ctrl-C's clean-up) fails its queries; nothing more to say
    try {
      await admin.connect();
      await admin.query("CREATE EXTENSION pg_prewarm; CREATE EXTENSION pg_buffercache");
      const settings = await serverSettings(admin);
      const table = `ladder_bench_${randomBytes(4).toString("hex")}`;
      ctx.say(
        `PostgreSQL ${settings.server_version} on 127.0.0.1:${server.connection.port} (${server.binDir}), shared_buffers ${settings.shared_buffers}, table ${table}`,
      );
      const rows: PgRow[] = [];
      const loads: PgLoad[] = [];
      let loaded = 0;
      for (const [sizeIndex, players] of ctx.plan.sizes.entries()) {
        ctx.say(`${size(players)} rows: COPY ${size(players - loaded)} more, then indexes, VACUUM ANALYZE and pg_prewarm`);
        const load = await loadPlayers(admin, table, ctx.plan.seed, loaded, players);
        loaded = players;
        loads.push(load);
        ctx.say(`  ${load.seconds} s; table + indexes ${mib(load.bytes)} MiB, ${mib(load.residentBytes)} MiB of them in shared_buffers`);
        rows.push(await measure(ctx, server, table, players, "top", plan.top, sizeIndex));
        rows.push(await measure(ctx, server, table, players, "rank", plan.rank, sizeIndex));
        rows.push(await measure(ctx, server, table, players, "rank", plan.rankPerCore, sizeIndex));
      }
      return {
        figures: { server: { binDir: server.binDir, settings: server.settings }, table, settings, loads, rows },
        tables: [postgresTable(rows, routerRows(ctx))],
      };
    } finally {
      await admin.end().catch(() => {});
      await server.stop();
      disown();
    }
  },
};

async function measure(
  ctx: BenchContext,
  server: BenchPostgres,
  table: string,
  players: number,
  question: "top" | "rank",
  plan: ClosedLoopPlan,
  sizeIndex: number,
): Promise<PgRow> {
  ctx.say(`${size(players)} rows, PostgreSQL ${question}, ${plan.concurrency} in flight`);
  const pool = new pg.Pool({ ...server.connection, max: plan.concurrency });
  pool.on("error", () => {}); // reported per query
  const rng = rngFor(ctx.plan.seed, 100 + sizeIndex);
  const send =
    question === "top"
      ? () => pool.query({ name: "top", text: `SELECT player_id, score FROM ${table} ORDER BY score DESC LIMIT 10` })
      : () =>
          pool.query({
            name: "rank",
            text: `SELECT count(*) + 1 AS rank FROM ${table} WHERE score > (SELECT score FROM ${table} WHERE player_id = $1)`,
            values: [playerId(rng.nextInt(players))],
          });
  try {
    const m: Measurement = await measureClosedLoop({ plan, send, cpu: { postgres: treeCpu(server.pid), client: selfCpu } });
    ctx.say(
      `  n = ${m.calls} in ${(m.elapsedMs / 1000).toFixed(1)} s (window closed by ${m.closedBy}), ${m.opsPerSec} per s, p50 ${m.latencyMs.p50} ms`,
    );
    return { players, question, m };
  } finally {
    await pool.end();
  }
}

async function serverSettings(client: pg.Client): Promise<Record<string, string>> {
  const names = [
    "server_version",
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "max_parallel_workers_per_gather",
    "max_worker_processes",
    "jit",
  ];
  const res = await client.query<{ name: string; setting: string }>(
    "SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name",
    [names],
  );
  return Object.fromEntries(res.rows.map((r) => [r.name, r.setting]));
}

function routerRows(ctx: BenchContext): ReadRow[] {
  return (ctx.earlier.reads?.figures.rows as ReadRow[] | undefined) ?? [];
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20).toLocaleString("en-US");
