/**
 * Huge pages under a board: what a shard's Redis spends per record on a plain record's board write
 * (the current score's ZSCORE, then the ZADD of a new random sort key: apply-scores.lua) on a board of
 * `--players` members, its memory in 4 KiB pages (Redis's default) and in transparent huge pages
 * (jemalloc asked for them through MALLOC_CONF, `--disable-thp no`: how deploy/local/src/redis-server.ts
 * starts the shards' Redis), two servers side by side filled alike, rounds interleaved. Then each
 * one's fork: a BGSAVE while the same writes go on, its fork time and the memory copied on write
 * (INFO's latest_fork_usec and rdb_last_cow_size).
 *
 *   node --import tsx store/bench/huge-pages.ts [--players 10000000] [--chunk 500] [--calls 400] [--rounds 3] [--out file]
 *
 * Figures: each server's CPU (/proc) over its calls ÷ records, the median over the rounds; a script that
 * only makes the members (no command) is measured the same way and is the floor of both. Memory: RSS
 * and AnonHugePages (/proc/<pid>/smaps_rollup) and used_memory after the fill. Where the kernel's THP
 * mode is `never` the two servers are the same and the bench says so.
 *
 * Prints a table and one JSON line; with --out, appends the line to that file.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { boardBenchArgs, startBenchRedis, type BenchRedis } from "./bench-redis.js";

const opt = boardBenchArgs({ players: 10_000_000, calls: 400 });
const { players: PLAYERS, chunk: CHUNK, calls: CALLS, rounds: ROUNDS } = opt;
/** Members made in the server per fill call. */
const FILL = 200_000;

/** What the shards' Redis are started with for huge pages (deploy/local/src/redis-server.ts, HUGE_PAGES_ENV). */
const HUGE = { env: { MALLOC_CONF: "thp:always,metadata_thp:always" }, args: ["--disable-thp", "no"] };

const FILL_SCRIPT = `local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = from, to do redis.call('ZADD', 'board', math.floor(math.random() * 2^40) + 1, 'p' .. i) end
return 1`;
/** CHUNK random players of the board each call: 'p' .. i, as the fill made them. */
const each = (body: string) => `local n = tonumber(ARGV[1])
for j = 1, ${CHUNK} do
  local p = 'p' .. math.random(0, n - 1)
${body}
end
return 1`;
const SHAPES = [
  { name: "a script that makes the members (no command)", script: each("") },
  {
    name: "ZSCORE, then ZADD of a new random sort key (a board write)",
    script: each("  redis.call('ZSCORE', 'board', p)\n  redis.call('ZADD', 'board', math.floor(math.random() * 2^40) + 1, p)"),
  },
];

interface Server {
  label: string;
  bench: BenchRedis;
  dir: string;
}

const smaps = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { rssMb: Math.round(kb("Rss") / 1024), hugeMb: Math.round(kb("AnonHugePages") / 1024) };
};
const infoField = async (s: Server, section: string, field: string) =>
  Number(new RegExp(`^${field}:(\\d+)`, "m").exec(await s.bench.redis.info(section))![1]);

async function main(): Promise<void> {
  const mode = /\[(\w+)\]/.exec(readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "utf8"))?.[1] ?? "unknown";
  if (mode === "never") console.log("the kernel's THP mode is never: both servers use 4 KiB pages");
  const servers: Server[] = [];
  try {
    for (const [label, extra] of [
      ["4 KiB pages", { env: {}, args: [] as string[] }],
      ["huge pages", HUGE],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), "huge-pages-"));
      servers.push({ label, dir, bench: await startBenchRedis({ env: extra.env, args: ["--dir", dir, ...extra.args] }) });
    }
    for (const s of servers)
      for (let from = 0; from < PLAYERS; from += FILL)
        await s.bench.redis.eval(FILL_SCRIPT, 0, String(from), String(Math.min(PLAYERS, from + FILL) - 1));
    const memory = await Promise.all(
      servers.map(async (s) => ({ ...smaps(s.bench.pid), usedMb: Math.round((await infoField(s, "memory", "used_memory")) / 2 ** 20) })),
    );
    const perRecord = servers.map(() => SHAPES.map(() => [] as number[]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [k, shape] of SHAPES.entries())
        for (const [i, s] of servers.entries()) {
          const cpu0 = s.bench.cpuSeconds();
          for (let c = 0; c < CALLS; c++) await s.bench.redis.eval(shape.script, 0, String(PLAYERS));
          perRecord[i]![k]!.push(((s.bench.cpuSeconds() - cpu0) * 1e6) / (CALLS * CHUNK));
        }
    // a fork under writes: BGSAVE, the board writes going on until the child is done
    const forks: Array<{ forkMs: number; copiedOnWriteMb: number; writesDuring: number }> = [];
    for (const s of servers) {
      await s.bench.redis.bgsave();
      let calls = 0;
      while ((await infoField(s, "persistence", "rdb_bgsave_in_progress")) === 1) {
        await s.bench.redis.eval(SHAPES[1]!.script, 0, String(PLAYERS));
        calls++;
      }
      await sleep(100);
      forks.push({
        forkMs: (await infoField(s, "stats", "latest_fork_usec")) / 1000,
        copiedOnWriteMb: Math.round((await infoField(s, "persistence", "rdb_last_cow_size")) / 2 ** 20),
        writesDuring: calls * CHUNK,
      });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const rows = servers.map((s, i) => ({
      server: s.label,
      usPerRecord: Object.fromEntries(SHAPES.map((shape, k) => [shape.name, Math.round(median(perRecord[i]![k]!) * 100) / 100])),
      memory: memory[i],
      fork: forks[i],
    }));
    console.log(
      `Redis CPU µs per record, ${PLAYERS.toLocaleString("en")} players, ${CHUNK} per call, median of ${ROUNDS} rounds (THP mode ${mode})`,
    );
    for (const r of rows) {
      console.log(`${r.server}: ${JSON.stringify(r.usPerRecord)}`);
      console.log(`  memory ${JSON.stringify(r.memory)}; fork ${JSON.stringify(r.fork)}`);
    }
    const line = { at: new Date().toISOString(), players: PLAYERS, chunk: CHUNK, calls: CALLS, rounds: ROUNDS, thpMode: mode, rows };
    console.log(JSON.stringify(line));
    if (opt.out) appendFileSync(opt.out, `${JSON.stringify(line)}\n`);
  } finally {
    for (const s of servers) {
      s.bench.stop();
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
}

await main();
