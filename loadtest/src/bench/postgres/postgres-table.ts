/**
 * The PostgreSQL baseline's table: `player_id text, score bigint` (sql-score.ts), under a
 * name with a random suffix, in the bench's own server (postgres-server.ts). Rows are
 * loaded with COPY from the bench's population (the same players and scores as the Redis
 * boards); the table is UNLOGGED (no WAL: loads faster, reads the same). Indexes are
 * built after each load (a btree on score, a unique btree on player_id), then VACUUM
 * ANALYZE sets the visibility map and statistics, so counts can run as index-only scans,
 * and pg_prewarm reads the table and its indexes into shared_buffers: PostgreSQL at its
 * best for these queries.
 */
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Client } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { BENCH_SPEC, benchPlayers } from "../infra/bench-board.js";
import { sqlScore } from "./sql-score.js";

export interface PgStep {
  name: string;
  seconds: number;
  rows?: number;
  rowsPerSec?: number;
}

export function randomTableName(): string {
  return `ladder_bench_${randomBytes(4).toString("hex")}`;
}

export async function createTable(client: Client, table: string): Promise<void> {
  await client.query(`CREATE UNLOGGED TABLE ${table} (player_id text NOT NULL, score bigint NOT NULL)`);
}

/** COPYs players first .. first+count-1 in. */
export async function copyPlayers(client: Client, table: string, seed: number, first: number, count: number): Promise<PgStep> {
  const start = performance.now();
  const lines = function* () {
    for (const chunk of benchPlayers(seed, first, count)) {
      yield chunk.map((p) => `${p.playerId}\t${sqlScore(BENCH_SPEC, p.points, p.reachedAtMs)}\n`).join("");
    }
  };
  await pipeline(Readable.from(lines()), client.query(copyFrom(`COPY ${table} (player_id, score) FROM STDIN`)));
  return step("COPY", start, count);
}

export async function buildIndexes(client: Client, table: string): Promise<PgStep[]> {
  const steps: PgStep[] = [];
  let start = performance.now();
  await client.query(`CREATE INDEX ${table}_score ON ${table} (score)`);
  steps.push(step("CREATE INDEX (score)", start));
  start = performance.now();
  await client.query(`CREATE UNIQUE INDEX ${table}_player ON ${table} (player_id)`);
  steps.push(step("CREATE UNIQUE INDEX (player_id)", start));
  start = performance.now();
  await client.query(`VACUUM ANALYZE ${table}`);
  steps.push(step("VACUUM ANALYZE", start));
  return steps;
}

export async function dropIndexes(client: Client, table: string): Promise<void> {
  await client.query(`DROP INDEX IF EXISTS ${table}_score, ${table}_player`);
}

/** The table's and its indexes' data (main forks), and how much of it is in shared_buffers. */
export interface Residency {
  bytes: number;
  residentBytes: number;
}

/**
 * Reads the table and both indexes into shared_buffers (pg_prewarm, which a sequential
 * scan would not do: scans of a table larger than a quarter of shared_buffers go through
 * a small ring of buffers), then counts their pages there (pg_buffercache).
 */
export async function prewarm(client: Client, table: string): Promise<{ step: PgStep; residency: Residency }> {
  const relations = [table, `${table}_score`, `${table}_player`];
  const start = performance.now();
  for (const r of relations) await client.query("SELECT pg_prewarm($1::regclass)", [r]);
  const warmed = step("pg_prewarm", start);
  const res = await client.query<{ bytes: string; resident: string }>(
    `SELECT sum(pg_relation_size(c.oid)) AS bytes,
            sum((SELECT count(*) FROM pg_buffercache b
                  WHERE b.relfilenode = pg_relation_filenode(c.oid) AND b.relforknumber = 0
                    AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))
                * current_setting('block_size')::bigint) AS resident
       FROM pg_class c WHERE c.relname = ANY($1::text[])`,
    [relations],
  );
  return { step: warmed, residency: { bytes: Number(res.rows[0]!.bytes), residentBytes: Number(res.rows[0]!.resident) } };
}

/** Rows, and bytes of the table with its indexes. */
export async function tableSize(client: Client, table: string): Promise<{ rows: number; totalBytes: number }> {
  const res = await client.query<{ rows: string; bytes: string }>(`SELECT (SELECT count(*) FROM ${table}) AS rows, pg_total_relation_size('${table}') AS bytes`);
  return { rows: Number(res.rows[0]!.rows), totalBytes: Number(res.rows[0]!.bytes) };
}

function step(name: string, start: number, rows?: number): PgStep {
  const seconds = (performance.now() - start) / 1000;
  return { name, seconds: Math.round(seconds * 100) / 100, ...(rows === undefined ? {} : { rows, rowsPerSec: Math.round(rows / seconds) }) };
}
