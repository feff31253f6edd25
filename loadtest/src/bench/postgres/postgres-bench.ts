/**
 * Benchmark "postgres": the textbook SQL leaderboard, the "why SQL struggles" case.
 *
 * The same players as the Redis boards go into one PostgreSQL table (postgres-table.ts:
 * COPY, then indexes on score and player_id, VACUUM ANALYZE), at 1M and then 10M rows,
 * and two questions are timed in a closed loop over a connection pool:
 *
 *   top 10      SELECT player_id, score FROM t ORDER BY score DESC LIMIT 10
 *   exact rank  SELECT count(*) + 1 FROM t WHERE score > (SELECT score FROM t WHERE player_id = $1)
 *
 * Rank counts everyone ahead: its cost grows with the table (seconds per query at 10M),
 * so it runs with fewer in flight and its window holds only a few dozen queries then.
 * Figures are set next to the router's (one shard: one data server each) from the read
 * benchmark of the same run, when it ran.
 */
import { userInfo } from "node:os";
import pg from "pg";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import type { Benchmark, BenchContext } from "../context.js";
import { selfCpu } from "../infra/cpu-meter.js";
import { measureClosedLoop, type Measurement } from "../infra/measure.js";
import { size } from "../output/format.js";
import { postgresTable, type PgRow } from "../output/postgres-table-view.js";
import type { ReadRow } from "../output/reads-table.js";
import type { ClosedLoopPlan } from "../plan.js";
import { buildIndexes, copyPlayers, createTable, dropIndexes, dropTable, randomTableName, tableSize, type PgStep } from "./postgres-table.js";

/** The machine's PostgreSQL (trust authentication), as this OS user. */
export const PG_CONNECTION = { host: "127.0.0.1", port: 5432, database: "test", user: userInfo().username } as const;

export const postgresBenchmark: Benchmark = {
  name: "postgres",
  title: "PostgreSQL baseline",
  async run(ctx) {
    const admin = new pg.Client(PG_CONNECTION);
    await admin.connect();
    const table = randomTableName();
    const dropped = ctx.cleanup.push(`PostgreSQL table ${table}`, () => dropTable(admin, table));
    const rows: PgRow[] = [];
    const loads: Array<{ players: number; steps: PgStep[]; rows: number; totalBytes: number }> = [];
    try {
      const settings = await serverSettings(admin);
      ctx.say(`PostgreSQL ${settings.server_version} on ${PG_CONNECTION.host}:${PG_CONNECTION.port}/${PG_CONNECTION.database}, table ${table} (dropped at the end)`);
      await createTable(admin, table);
      let loaded = 0;
      for (const [sizeIndex, players] of ctx.plan.sizes.entries()) {
        ctx.say(`${size(players)} rows: COPY ${size(players - loaded)} more, then indexes and VACUUM ANALYZE`);
        if (loaded > 0) await dropIndexes(admin, table);
        const steps = [await copyPlayers(admin, table, ctx.plan.seed, loaded, players - loaded), ...(await buildIndexes(admin, table))];
        loaded = players;
        loads.push({ players, steps, ...(await tableSize(admin, table)) });
        rows.push(await measure(ctx, table, players, "top", ctx.plan.postgres.top, sizeIndex));
        rows.push(await measure(ctx, table, players, "rank", ctx.plan.postgres.rank, sizeIndex));
      }
      return {
        figures: { table, settings, loads, rows },
        tables: [postgresTable(rows, routerRows(ctx))],
        notes: postgresNotes(ctx, settings, loads),
      };
    } finally {
      await dropped.release();
      await admin.end();
    }
  },
};

async function measure(ctx: BenchContext, table: string, players: number, question: "top" | "rank", plan: ClosedLoopPlan, sizeIndex: number): Promise<PgRow> {
  ctx.say(`${size(players)} rows, PostgreSQL ${question}, ${plan.concurrency} in flight`);
  const pool = new pg.Pool({ ...PG_CONNECTION, max: plan.concurrency });
  pool.on("error", () => {}); // reported per query
  const rng = rngFor(ctx.plan.seed, 100 + sizeIndex);
  const send = question === "top"
    ? () => pool.query({ name: "top", text: `SELECT player_id, score FROM ${table} ORDER BY score DESC LIMIT 10` })
    : () => pool.query({ name: "rank", text: `SELECT count(*) + 1 AS rank FROM ${table} WHERE score > (SELECT score FROM ${table} WHERE player_id = $1)`, values: [playerId(rng.nextInt(players))] });
  try {
    const m: Measurement = await measureClosedLoop({ plan, send, cpu: { client: selfCpu } });
    return { players, question, m };
  } finally {
    await pool.end();
  }
}

async function serverSettings(client: pg.Client): Promise<Record<string, string>> {
  const names = ["server_version", "shared_buffers", "work_mem", "max_parallel_workers_per_gather", "effective_cache_size"];
  const res = await client.query<{ name: string; setting: string }>("SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name", [names]);
  return Object.fromEntries(res.rows.map((r) => [r.name, r.setting]));
}

function routerRows(ctx: BenchContext): ReadRow[] {
  return (ctx.earlier.reads?.figures.rows as ReadRow[] | undefined) ?? [];
}

function postgresNotes(ctx: BenchContext, settings: Record<string, string>, loads: ReadonlyArray<{ players: number; steps: PgStep[]; totalBytes: number }>): string[] {
  const { top, rank } = ctx.plan.postgres;
  const load = loads.map((l) => `${size(l.players)}: ${l.steps.map((s) => `${s.name} ${s.seconds} s${s.rowsPerSec ? ` (${s.rowsPerSec.toLocaleString("en-US")} rows/s)` : ""}`).join(", ")}; table + indexes ${Math.round(l.totalBytes / 2 ** 20)} MiB (${Math.round(l.totalBytes / l.players)} bytes per player)`);
  return [
    `PostgreSQL ${settings.server_version} (shared_buffers ${settings.shared_buffers}, work_mem ${settings.work_mem}, max_parallel_workers_per_gather ${settings.max_parallel_workers_per_gather}), the machine's own server on the same 2 cores. `
      + "Table `(player_id text, score bigint)`, UNLOGGED, score = the board's order folded into one bigint (more points, then earlier time), btree on score and unique btree on player_id, VACUUM ANALYZE after each load. Same players and scores as the Redis boards.",
    `Closed loop over a pg connection pool, named (prepared) statements: top 10 (\`ORDER BY score DESC LIMIT 10\`) with ${top.concurrency} in flight, exact rank (\`SELECT count(*)+1 ... WHERE score > (SELECT score ... WHERE player_id = $1)\`, random seeded players) with ${rank.concurrency} in flight, `
      + `${rank.warmupMs === top.warmupMs ? "" : `${rank.warmupMs / 1000} s (rank) and `}${top.warmupMs / 1000} s warm-up, ${top.durationMs / 1000} s measured; queries still running when the window closes are awaited and counted, which is how rank at the largest size is time-boxed (n = queries measured).`,
    "SQL rank here ignores the last tie-break (player id within the same minute and points): a slightly easier question than the router's. Router columns: the router over one shard (one redis-server, as PostgreSQL is one server) at 32 in flight, from the reads table of this run.",
    `Load: ${load.join("; ")}.`,
  ];
}
