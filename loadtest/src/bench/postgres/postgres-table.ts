/**
 * The PostgreSQL baseline's table: `(player_id, score)` UNLOGGED, score = the board's order as one
 * bigint (sql-score.ts), a btree on score and a unique one on player_id, grown by COPY from one
 * size to the next (the indexes dropped and rebuilt around it, then VACUUM ANALYZE), then read
 * into shared_buffers with pg_prewarm (a sequential scan of a table larger than a quarter of
 * shared_buffers goes through a small ring of buffers) and its pages there counted (pg_buffercache).
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Client } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { BENCH_SPEC, benchPlayers } from "../infra/bench-board.js";
import { sqlScore } from "./sql-score.js";

/** A load's time, and the bytes of the table and its indexes (main forks) and how many of them are in shared_buffers. */
export interface PgLoad {
  players: number;
  seconds: number;
  bytes: number;
  residentBytes: number;
}

/** Grows `table` (created when `first` is 0) from players 0 .. first-1 to 0 .. players-1. */
export async function loadPlayers(client: Client, table: string, seed: number, first: number, players: number): Promise<PgLoad> {
  const start = performance.now();
  if (first === 0) await client.query(`CREATE UNLOGGED TABLE ${table} (player_id text NOT NULL, score bigint NOT NULL)`);
  else await client.query(`DROP INDEX IF EXISTS ${table}_score, ${table}_player`);
  const lines = function* () {
    for (const chunk of benchPlayers(seed, first, players - first))
      yield chunk.map((p) => `${p.playerId}\t${sqlScore(BENCH_SPEC, p.points, p.reachedAtMs)}\n`).join("");
  };
  await pipeline(Readable.from(lines()), client.query(copyFrom(`COPY ${table} (player_id, score) FROM STDIN`)));
  await client.query(`CREATE INDEX ${table}_score ON ${table} (score)`);
  await client.query(`CREATE UNIQUE INDEX ${table}_player ON ${table} (player_id)`);
  await client.query(`VACUUM ANALYZE ${table}`);
  const relations = [table, `${table}_score`, `${table}_player`];
  for (const r of relations) await client.query("SELECT pg_prewarm($1::regclass)", [r]);
  const seconds = Math.round(performance.now() - start) / 1000;
  const res = await client.query<{ bytes: string; resident: string }>(
    `SELECT sum(pg_relation_size(c.oid)) AS bytes,
            sum((SELECT count(*) FROM pg_buffercache b
                  WHERE b.relfilenode = pg_relation_filenode(c.oid) AND b.relforknumber = 0
                    AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))
                * current_setting('block_size')::bigint) AS resident
       FROM pg_class c WHERE c.relname = ANY($1::text[])`,
    [relations],
  );
  return { players, seconds, bytes: Number(res.rows[0]!.bytes), residentBytes: Number(res.rows[0]!.resident) };
}
