/**
 * The floor under the apply script's cost: what Redis spends per record on each command a plain
 * record makes (apply-scores.lua, apply-records.lua, apply-dedup.lua), each alone, on sets the size
 * of a real board, and on the other layouts the per-player count of records could have.
 *
 * It starts its own redis-server (bench-redis.ts), fills a board of `--players` members with random
 * sort keys, the counts of records (one sorted set, 64 sets by slot, sets of about 16 members, one
 * hash, hashes of about PER_BUCKET players: the bucketed layout, 64 unless the environment says) and
 * a dedup set of 300,000 ids, then runs each shape as script calls of `--chunk` records
 * (ARGV: player indexes; the script makes each member 'p<i>', as every shape does, so the shapes
 * differ only in their commands), `--calls` calls per shape and round, rounds interleaved. Figures:
 * the server's CPU (/proc) over the calls ÷ records, the median over the rounds, less nothing: the
 * row "a script that makes the members" is the floor of every row.
 *
 *   [PER_BUCKET=64] node --import tsx store/bench/zset-floor.ts [--players 1000000] [--chunk 500] [--calls 200] [--rounds 3] [--out file]
 *
 * BENCH_REDIS_ARGS passes further redis-server arguments (bench-redis.ts).
 *
 * Prints a table and one JSON line; with --out, appends the line to that file.
 */
import { appendFileSync } from "node:fs";
import { boardBenchArgs, startBenchRedis } from "./bench-redis.js";

const opt = boardBenchArgs({ players: 1_000_000, calls: 200 });
const { players: PLAYERS, chunk: CHUNK, calls: CALLS, rounds: ROUNDS } = opt;
const SLOTS = 64;
const SMALL = Math.max(1, Math.round(PLAYERS / 16));
const DEDUP = 300_000;
/** Hashes of counts of about 64 players each (listpacks): the bucketed layout. */
const PER_BUCKET = Number(process.env.PER_BUCKET ?? 64);
const BUCKETS = Math.max(1, Math.round(PLAYERS / PER_BUCKET));

/** Each shape: a script over ARGV = player indexes (ARGV[1] is a number the shape may use). */
const each = (body: string) => `local n = tonumber(ARGV[1])\nfor i = 2, #ARGV do\n  local p = 'p' .. ARGV[i]\n${body}\nend\nreturn 1`;
const SHAPES: Array<{ name: string; script: string }> = [
  { name: "a script that makes the members (no command)", script: each("") },
  { name: "ZSCORE on the board", script: each("  redis.call('ZSCORE', 'board', p)") },
  { name: "ZADD on the board (a new random key)", script: each("  redis.call('ZADD', 'board', math.floor(math.random() * 2^40) + 1, p)") },
  { name: "ZINCRBY 1: one set of every player (today's count)", script: each("  redis.call('ZINCRBY', 'counts', 1, p)") },
  {
    name: `ZINCRBY 1: ${SLOTS} sets, one per slot`,
    script: each(`  redis.call('ZINCRBY', 'counts:' .. (tonumber(ARGV[i]) % ${SLOTS}), 1, p)`),
  },
  {
    name: "ZINCRBY 1: sets of about 16 players (listpacks)",
    script: each(`  redis.call('ZINCRBY', 'small:' .. (tonumber(ARGV[i]) % ${SMALL}), 1, p)`),
  },
  { name: "HINCRBY 1: one hash of every player", script: each("  redis.call('HINCRBY', 'hcounts', p, 1)") },
  {
    name: `HINCRBY 1: hashes of about ${PER_BUCKET} players (listpacks)`,
    script: each(`  redis.call('HINCRBY', 'hsmall:' .. (tonumber(ARGV[i]) % ${BUCKETS}), p, 1)`),
  },
  {
    name: `dedup: ZADD an id at the newest time, trim the oldest (${DEDUP.toLocaleString("en")} held)`,
    script: each(
      "  n = n + 1\n  redis.call('ZADD', 'dedup', n, p .. '\\ne' .. n)\n  redis.call('ZREMRANGEBYSCORE', 'dedup', '-inf', n - " +
        DEDUP +
        ")",
    ),
  },
];

async function main(): Promise<void> {
  const bench = await startBenchRedis();
  const { redis } = bench;
  try {
    // the sets as a live shard holds them (member 'p<i>')
    const random = (n: number) => Math.floor(Math.random() * n);
    const hashes: string[][] = [];
    const smalls: Array<Map<number, string[]>> = [];
    for (let from = 0; from < PLAYERS; from += 10_000) {
      const pipe = redis.pipeline();
      const board: Array<number | string> = [];
      const counts: Array<number | string> = [];
      const hash: string[] = [];
      const small = new Map<number, string[]>();
      for (let i = from; i < Math.min(PLAYERS, from + 10_000); i++) {
        const c = 1 + random(50);
        board.push(1 + random(2 ** 40), `p${i}`);
        counts.push(c, `p${i}`);
        hash.push(`p${i}`, String(c));
        const b = i % BUCKETS;
        if (!small.has(b)) small.set(b, []);
        small.get(b)!.push(`p${i}`, String(c));
        pipe.zadd(`counts:${i % SLOTS}`, c, `p${i}`);
        pipe.zadd(`small:${i % SMALL}`, c, `p${i}`);
      }
      pipe.zadd("board", ...board);
      pipe.zadd("counts", ...counts);
      await pipe.exec();
      hashes.push(hash);
      smalls.push(small);
    }
    // the two hash layouts filled apart, each's memory the server's used_memory before and after
    const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))![1]);
    let before = await used();
    for (const hash of hashes) await redis.hset("hcounts", ...hash);
    const oneHashBytes = (await used()) - before;
    before = await used();
    for (const small of smalls) {
      const pipe = redis.pipeline();
      for (const [b, fields] of small) pipe.hset(`hsmall:${b}`, ...fields);
      await pipe.exec();
    }
    const smallHashBytes = (await used()) - before;
    hashes.length = 0;
    smalls.length = 0;
    console.log(
      `bytes per player: one hash ${(oneHashBytes / PLAYERS).toFixed(1)}, hashes of about ${PER_BUCKET} (${BUCKETS} keys) ${(smallHashBytes / PLAYERS).toFixed(1)}`,
    );
    for (let from = 0; from < DEDUP; from += 10_000)
      await redis.zadd("dedup", ...Array.from({ length: 10_000 }, (_, j) => [from + j + 1, `p${from + j}\ne${from + j + 1}`]).flat());
    let newest = DEDUP;
    const shas = await Promise.all(SHAPES.map((s) => redis.script("LOAD", s.script) as Promise<string>));
    const perRecord = SHAPES.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++)
      for (const [k, sha] of shas.entries()) {
        const cpu0 = bench.cpuSeconds();
        for (let c = 0; c < CALLS; c++) {
          const ids = Array.from({ length: CHUNK }, () => String(random(PLAYERS)));
          await redis.evalsha(sha, 0, String(newest), ...ids);
          if (SHAPES[k]!.name.startsWith("dedup")) newest += CHUNK;
        }
        perRecord[k]!.push(((bench.cpuSeconds() - cpu0) * 1e6) / (CALLS * CHUNK));
      }
    // raw pipelined ZADD, no script: the command alone as a client sends it
    const raw: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const cpu0 = bench.cpuSeconds();
      for (let c = 0; c < CALLS; c++)
        await redis.zadd("board", ...Array.from({ length: CHUNK }, () => [1 + random(2 ** 40), `p${random(PLAYERS)}`]).flat());
      raw.push(((bench.cpuSeconds() - cpu0) * 1e6) / (CALLS * CHUNK));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const rows = [
      ...SHAPES.map((s, k) => ({ shape: s.name, usPerRecord: Math.round(median(perRecord[k]!) * 100) / 100 })),
      { shape: "ZADD on the board, pipelined by the client (no script)", usPerRecord: Math.round(median(raw) * 100) / 100 },
    ];
    console.log(`Redis CPU µs per record, ${PLAYERS.toLocaleString("en")} players, ${CHUNK} per call, median of ${ROUNDS} rounds`);
    for (const r of rows) console.log(`${r.usPerRecord.toFixed(2).padStart(7)}  ${r.shape}`);
    const line = { at: new Date().toISOString(), players: PLAYERS, chunk: CHUNK, calls: CALLS, rounds: ROUNDS, rows };
    console.log(JSON.stringify(line));
    if (opt.out) appendFileSync(opt.out, JSON.stringify(line) + "\n");
  } finally {
    bench.stop();
  }
}

await main();
