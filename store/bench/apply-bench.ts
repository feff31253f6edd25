/**
 * What the apply path costs per record: Redis CPU (the redis-server's utime + stime from
 * /proc/<pid>/stat) and the applying process's CPU (process.cpuUsage) of ShardWriter.apply,
 * the call the shard node's apply loop makes (one apply-events script call per chunk).
 *
 * It starts its own redis-server on a free port (never the machine's 6379), prepares the
 * records beforehand through prepareEvent exactly as the shard node does (records encoded as
 * ingest writes them; the prepare cost is reported apart, prepareCpuUsPerRecord: the shard node
 * pays it too, but it is not the apply call),
 * then applies them in chunks of `--chunk` records of one partition (default 500, the shard
 * node's LADDER_APPLY_BATCH default), `--in-flight` calls at once, never two of one partition. The mix: a third each of a board without a definition
 * (SET/INCREMENT/BEST, event ids), a defined all-time board with a histogram and metadata, and
 * a defined daily board with two windows (3-period SUM, 2-period BEST) and a histogram.
 *
 *   node --import tsx store/bench/apply-bench.ts [--records 200000] [--chunk 500] [--in-flight 4] [--label x] [--out file]
 *     [--stats] [--digest] [--now <Unix ms>] [--prepare-passes 1] [--closed]
 *
 * --prepare-passes n prepares the records n times and reports the last pass (prepareCpuUsPerRecord:
 * the steady state of a shard node that has run a while) beside the first (prepareFirstCpuUsPerRecord:
 * its JIT still warming).
 *
 * --closed starts the shard as one that has closed a period of another board in every partition
 * (a board with `close` rules, a league) or deleted a board: its deleted-generations set is not
 * empty, so every record is checked against it (apply-deletion.lua), as on most live clusters.
 *
 * Prints one JSON line; with --out, appends it to that file. --stats adds INFO commandstats as
 * calls and µs per record; --digest adds Redis's DEBUG DIGEST of the whole data set after the
 * run, which two versions of the apply script must agree on when given the same --now (the
 * records' times and ingest times derive from it).
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "@ladder/platform/config";
import { normalizeDefinition, specOfRules } from "@ladder/model/board-definitions";
import { periodAt } from "@ladder/model/periods";
import { windowPlan } from "@ladder/model/windows";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { Operation, PeriodKind, WindowCombine, type BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import type { BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import { prepareEvent } from "../src/writer/prepare-event.js";
import { ShardWriter, type PreparedEvent } from "../src/writer/shard-writer.js";
import { startBenchRedis } from "./bench-redis.js";

const { values: opt } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    chunk: { type: "string", default: "500" },
    "in-flight": { type: "string", default: "4" },
    partitions: { type: "string", default: "8" },
    label: { type: "string", default: "" },
    stats: { type: "boolean", default: false },
    digest: { type: "boolean", default: false },
    now: { type: "string" },
    out: { type: "string" },
    "prepare-passes": { type: "string", default: "1" },
    closed: { type: "boolean", default: false },
  },
});
const RECORDS = Number(opt.records);
const CHUNK = Number(opt.chunk);
const IN_FLIGHT = Number(opt["in-flight"]);
const PARTITIONS = Number(opt.partitions);
const PLAYERS = 20_000;

/** INFO commandstats as calls per record of each command, most first (--stats). */
function commandsPerRecord(info: string): string {
  const rows = [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)].map((m) => ({
    command: m[1]!,
    perRecord: Number(m[2]) / RECORDS,
    usecPerRecord: Number(m[3]) / RECORDS,
  }));
  rows.sort((a, b) => b.perRecord - a.perRecord);
  return rows.map((r) => `${r.command} ${r.perRecord.toFixed(2)}/record ${r.usecPerRecord.toFixed(2)} µs/record`).join("\n");
}

/** A deterministic generator (mulberry32): both runs apply the same records. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A defined board's rules as AdminService.CreateBoard makes them (generation 1). */
function rulesOf(name: string, rules: Record<string, unknown>): BoardRules {
  const requested = {
    name,
    rules: { minPoints: 0n, maxPoints: 0n, windows: [], histogramBounds: [], columns: [], ...rules },
    defaultOp: Operation.UNSPECIFIED,
    allowOpOverride: true,
    maxMetadataBytes: 64,
  };
  const made = normalizeDefinition(requested as unknown as BoardDefinition, 1);
  if (!made.definition?.rules) throw new Error(`board "${name}": ${made.problems.join("; ")}`);
  return made.definition.rules;
}

function records(now: number): Buffer[] {
  const histRules = rulesOf("bench-hist", {
    minPoints: 0n,
    maxPoints: 1_000_000n,
    resolutionMs: 1000,
    epochMs: BigInt(Date.UTC(2026, 0, 1)),
    histogramBounds: [10n, 100n, 1000n, 5000n, 10_000n, 50_000n, 100_000n, 500_000n],
  });
  const winRules = rulesOf("bench-win", {
    minPoints: 0n,
    maxPoints: 1_000_000n,
    resolutionMs: 1000,
    epochMs: BigInt(Date.UTC(2026, 0, 1)),
    period: PeriodKind.DAILY,
    timeZone: "UTC",
    keepPeriods: 7,
    histogramBounds: [100n, 10_000n],
    windows: [
      { name: "3d", periods: 3, combine: WindowCombine.SUM },
      { name: "best2", periods: 2, combine: WindowCombine.BEST },
    ],
  });
  const winSpec = specOfRules("bench-win", winRules).spec!;
  const random = rng(7);
  const out: Buffer[] = [];
  const ops = [Operation.SET, Operation.INCREMENT, Operation.BEST];
  for (let i = 0; i < RECORDS; i++) {
    const playerId = `p${Math.floor(random() * PLAYERS)}`;
    const value = BigInt(Math.floor(random() * 100_000));
    const at = now - Math.floor(random() * 2 * 86_400_000); // today or the two days before
    const fields = { playerId, value, timestampMs: BigInt(at), eventId: `e${i}` };
    const kind = i % 3;
    if (kind === 0) out.push(encodeScoreEvent({ ...fields, board: "bench-plain", op: ops[i % 3]! }, now));
    else if (kind === 1)
      out.push(
        encodeScoreEvent({ ...fields, board: "bench-hist", op: Operation.BEST, metadata: i % 2 ? `{"skin":${i % 7}}` : "" }, now, {
          rules: histRules,
        }),
      );
    else {
      const period = periodAt(winSpec.period, at);
      const windows = windowPlan(winSpec, period);
      out.push(
        encodeScoreEvent({ ...fields, board: "bench-win", op: Operation.INCREMENT }, now, {
          rules: winRules,
          period: { id: period.id, expireAtMs: windows.periodExpireAtMs },
          windows,
        }),
      );
    }
  }
  return out;
}

async function main(): Promise<void> {
  const bench = await startBenchRedis();
  const { redis } = bench;
  try {
    const boards = loadConfig({}).boards;
    const now = opt.now ? Number(opt.now) : Date.now();
    const values = records(now);
    // one partition per record slot, in offset order within each; the chunks of the last pass are applied
    let chunks: Array<{ partition: number; events: PreparedEvent[] }> = [];
    const prepareCpus: number[] = [];
    for (let pass = 0; pass < Math.max(1, Number(opt["prepare-passes"])); pass++) {
      chunks = [];
      const next = new Array<bigint>(PARTITIONS).fill(0n);
      const prepare0 = process.cpuUsage();
      for (let i = 0; i < values.length; i += CHUNK) {
        const partition = (i / CHUNK) % PARTITIONS;
        const events = values.slice(i, i + CHUNK).flatMap((v) => {
          const r = prepareEvent(v, next[partition]!++, boards);
          if (r.problem) throw new Error(r.problem);
          return r.events;
        });
        chunks.push({ partition, events });
      }
      const used = process.cpuUsage(prepare0);
      prepareCpus.push(used.user + used.system);
    }
    const writer = new ShardWriter({
      shardId: "bench",
      stamp: "bench",
      builtFrom: "bench",
      redis,
      keyPrefix: "b:",
      dedupWindowMs: 3_600_000,
    });
    // warm-up: the scripts loaded, the sets started (not counted): a tenth of the chunks, on other partitions
    const warmWriter = new ShardWriter({
      shardId: "bench",
      stamp: "bench",
      builtFrom: "bench",
      redis,
      keyPrefix: "w:",
      dedupWindowMs: 3_600_000,
    });
    for (const c of chunks.slice(0, Math.ceil(chunks.length / 10))) await warmWriter.apply(c.partition, c.events);
    if (opt.closed)
      // a period of another board closed in every partition, as its close markers leave it (apply-deletion.lua)
      for (let partition = 0; partition < PARTITIONS; partition++)
        await redis.zadd("b:board:~deleted", 0, `closed-board#1@2026-01-01\n${partition}`);
    await redis.config("RESETSTAT");
    const redis0 = bench.cpuSeconds();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const tails = new Map<number, Promise<void>>();
    let applied = 0;
    let at = 0;
    const worker = async () => {
      while (at < chunks.length) {
        const c = chunks[at++]!;
        const before = tails.get(c.partition) ?? Promise.resolve();
        const done = before.then(async () => {
          const r = await writer.apply(c.partition, c.events);
          if (!r.inSequence || r.drift !== undefined) throw new Error(`partition ${c.partition}: not in sequence`);
          applied += r.applied + r.duplicates;
        });
        tails.set(c.partition, done);
        await done;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const redisCpu = bench.cpuSeconds() - redis0;
    if (applied !== RECORDS) throw new Error(`${applied} of ${RECORDS} records applied`);
    const round = (x: number) => Math.round(x * 100) / 100;
    const line = {
      label: opt.label,
      at: new Date().toISOString(),
      closed: opt.closed,
      records: RECORDS,
      chunk: CHUNK,
      inFlight: IN_FLIGHT,
      seconds: round(seconds),
      recordsPerSec: Math.round(RECORDS / seconds),
      redisCpuUsPerRecord: round((redisCpu * 1e6) / RECORDS),
      nodeCpuUsPerRecord: round((cpu.user + cpu.system) / RECORDS),
      prepareCpuUsPerRecord: round(prepareCpus.at(-1)! / RECORDS),
      prepareFirstCpuUsPerRecord: round(prepareCpus[0]! / RECORDS),
    };
    console.log(JSON.stringify(line));
    if (opt.digest) console.log(`digest ${await redis.call("DEBUG", "DIGEST")}`);
    if (opt.stats) console.log(commandsPerRecord(await redis.info("commandstats")));
    if (opt.out) appendFileSync(opt.out, JSON.stringify(line) + "\n");
  } finally {
    bench.stop();
  }
}

await main();
