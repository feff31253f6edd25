/**
 * Benchmark "boards": what windows and multi-board writes cost on one shard: reads
 * (window-reads.ts) and writes (apply-cost.ts) per round of existing players. Method: boards.md.
 */
import type { Redis } from "ioredis";
import { storedBoardName } from "@ladder/model/board-spec";
import { loadConfig } from "@ladder/platform/config";
import type { Period } from "@ladder/model/periods";
import { slotOf } from "@ladder/model/placement";
import { ShardReader } from "@ladder/store";
import { ShardWriter } from "@ladder/store/writer";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_SLOTS, BENCH_SPECS } from "../infra/bench-board.js";
import { benchRedis, startRedisFleet } from "../infra/infra-fixtures.js";
import { size } from "../output/format.js";
import {
  boardsReadTable,
  boardsWriteTable,
  writeLabel,
  type BoardsReadRow,
  type BoardsWriteRow,
  type ReadTarget,
} from "./boards-tables.js";
import { measureApply } from "./apply-cost.js";
import { benchBoards, benchDays, boardKey, DAYS, encodeRecord, MAX_ALSO, type BenchBoards } from "./bench-boards.js";
import { stateKeys, type StateKey } from "./board-state.js";
import { dayScoreSource } from "./daily-players.js";
import { PartitionChunks } from "./partition-chunks.js";
import { copyKey, fillKeys, type FillResult } from "./prefill.js";
import { READ_QUESTIONS, steadyReads } from "./window-reads.js";

const PREFIX = "bench:";
const STAMP = "bench-boards-shard";
const HEARTBEAT_TTL_MS = 3600_000; // 1 h: longer than any run
const ALSO_COUNTS = [1, 4, MAX_ALSO];

/** What the whole run saw, for the tables, the notes and the JSON. */
export interface BoardsRun {
  reads: BoardsReadRow[];
  writes: BoardsWriteRow[];
  fills: Array<FillResult & { round: number; what: string }>;
  copies: Array<{ round: number; what: string; seconds: number }>;
  /** used_memory_peak of each round's server. */
  peakUsedMemory: Array<{ round: number; bytes: number }>;
  days: string[];
}

interface Round {
  ctx: BenchContext;
  players: number;
  boards: BenchBoards;
  days: Period[];
  nowMs: number;
  redis: Redis;
  run: BoardsRun;
}

export const boardsBenchmark: Benchmark = {
  name: "boards",
  method: "boards/boards.md",
  title: "Boards: windows and multi-board writes",
  async run(ctx) {
    const nowMs = Date.now();
    const boards = benchBoards(nowMs);
    const days = benchDays(boards.windowed.spec, nowMs, 6);
    const run: BoardsRun = {
      reads: [],
      writes: [],
      fills: [],
      copies: [],
      peakUsedMemory: [],
      days: days.map((d) => d.id),
    };
    ctx.say(
      `days written: ${days[0]!.id} .. ${days[DAYS - 1]!.id} (D1 .. D7); one redis-server per round is one shard, no shard node runs (the bench sets the heartbeat key)`,
    );
    for (const players of ctx.plan.boards.sizes) {
      const fleet = await startRedisFleet(ctx, `boards-${size(players)}`, 1);
      const redis = benchRedis(fleet.servers[0]!.url);
      try {
        await boardsRound({ ctx, players, boards, days, nowMs, redis, run }, fleet.servers[0]!.url);
        run.peakUsedMemory.push({ round: players, bytes: Number(/^used_memory_peak:(\d+)/m.exec(await redis.info("memory"))?.[1] ?? NaN) });
      } finally {
        redis.disconnect();
        await fleet.stop();
      }
    }
    const p = ctx.plan.boards;
    return {
      figures: {
        ...run,
        plan: p,
        boards: { windowed: boards.windowed.name, plain: boards.plain.name, also: boards.also.map((b) => b.name) },
      },
      tables: [boardsReadTable(run.reads, p.reads.concurrency), boardsWriteTable(run.writes)],
    };
  },
};

async function boardsRound(r: Round, url: string): Promise<void> {
  const { ctx, players, boards, days, redis } = r;
  const p = ctx.plan.boards;
  const full = players <= p.fullStateMaxPlayers;
  const spec = boards.windowed.spec;
  const all = stateKeys(spec, days, DAYS);
  const d7 = (window = "") => all.find((k) => k.day === DAYS - 1 && (k.window?.name ?? "") === window)!;
  const targets: Record<ReadTarget, StateKey> = { period: d7(), sum7: d7("sum7"), best7: d7("best7") };
  const redisKey = (k: StateKey, prefix = PREFIX) => boardKey(prefix, boards.windowed, k.period.id, k.window?.name ?? "");
  if (full) ctx.say(`${size(players)} players: the windowed board's whole state after ${DAYS} days (${all.length} keys)`);
  else ctx.say(`${size(players)} players: only the keys read (day D7, sum7 and best7 ending D7); the whole state would not fit`);
  await fill(
    r,
    full ? all : Object.values(targets),
    redisKey,
    full ? "the daily keys D1 .. D7 and their windows" : "D7, sum7 and best7 ending D7",
  );
  const writer = new ShardWriter({
    shardId: "shard-0",
    stamp: STAMP,
    builtFrom: "bench-boards",
    redis,
    keyPrefix: PREFIX,
    dedupWindowMs: loadConfig({}).dedupWindowMs,
  });
  await writer.markServing(HEARTBEAT_TTL_MS);
  const readerRedis = benchRedis(url);
  try {
    await boardsReads(
      r,
      new ShardReader({ shardId: "shard-0", stamp: STAMP, redis: readerRedis, keyPrefix: PREFIX }),
      readerRedis,
      targets,
      redisKey,
    );
  } finally {
    readerRedis.disconnect();
  }
  await preparePlainBoards(r, full, targets, redisKey);
  await boardsWrites(r, writer, full);
}

/** Fills `keys` with the pre-fill (prefill.ts). */
async function fill(r: Round, keys: StateKey[], redisKey: (k: StateKey) => string, what: string): Promise<void> {
  const fill = await fillKeys({
    redis: r.redis,
    spec: r.boards.windowed.spec,
    seed: r.ctx.plan.seed,
    players: r.players,
    days: r.days.slice(0, DAYS),
    targets: keys.map((key) => ({ key, redisKey: redisKey(key) })),
    label: `filling ${what}`,
  });
  r.run.fills.push({ round: r.players, what, ...fill });
  r.ctx.say(`  ${what}: ${fill.members.toLocaleString("en-US")} members in ${fill.seconds} s (${fill.perSec.toLocaleString("en-US")}/s)`);
}

async function boardsReads(
  r: Round,
  reader: ShardReader,
  readerRedis: Redis,
  targets: Record<ReadTarget, StateKey>,
  redisKey: (k: StateKey) => string,
): Promise<void> {
  const { ctx, players, boards } = r;
  const plan = ctx.plan.boards.reads;
  const stored = (k: StateKey) => storedBoardName(boards.windowed.name, boards.windowed.spec, k.period.id, k.window?.name ?? "");
  const picker = (stream: number) => {
    const rng = rngFor(ctx.plan.seed, 500 + stream);
    return () => playerId(rng.nextInt(players));
  };
  const rows: BoardsReadRow[] = [];
  for (const target of ["period", "sum7", "best7"] as const) {
    const entries = await r.redis.zcard(redisKey(targets[target]));
    rows.push(...READ_QUESTIONS.map((question) => ({ players, target, entries, read: { question } })));
  }
  for (const row of rows) {
    ctx.say(`  ${size(players)}: ${row.read.question} of ${row.target}, ${plan.concurrency} in flight`);
    await steadyReads(reader, readerRedis, stored(targets[row.target]), row.read, plan, picker(10 + rows.indexOf(row)));
  }
  r.run.reads.push(...rows);
}

/** The plain board and the also boards, as copies of the windowed board's day D7 (what the same records would leave on boards without windows). */
async function preparePlainBoards(
  r: Round,
  full: boolean,
  targets: Record<ReadTarget, StateKey>,
  redisKey: (k: StateKey) => string,
): Promise<void> {
  const { redis, boards, days, players } = r;
  const d7 = days[DAYS - 1]!;
  const key = (b: typeof boards.plain) => ({ redisKey: boardKey(PREFIX, b, d7.id), expireAtMs: d7.expireAtMs });
  const from = redisKey(targets.period);
  let seconds = 0;
  if (full) seconds += await copyKey(redis, from, [key(boards.plain)]);
  else {
    await redis.del(redisKey(targets.sum7), redisKey(targets.best7));
    await redis.rename(from, key(boards.plain).redisKey);
    await redis.pexpireat(key(boards.plain).redisKey, d7.expireAtMs);
  }
  seconds += await copyKey(redis, key(boards.plain).redisKey, boards.also.map(key));
  r.run.copies.push({
    round: players,
    what: full
      ? "D7 to the plain board and 8 also boards (COPY)"
      : "sum7, best7 deleted; D7 renamed to the plain board, copied to 8 also boards (COPY)",
    seconds,
  });
  r.ctx.say(`  plain board and ${boards.also.length} also boards ready in ${seconds} s`);
}

async function boardsWrites(r: Round, writer: ShardWriter, full: boolean): Promise<void> {
  const { ctx, players, boards, days, nowMs, redis } = r;
  const d7 = days[DAYS - 1]!;
  const source = dayScoreSource(boards.windowed.spec, d7);
  const variants: Array<Pick<BoardsWriteRow, "write" | "also">> = [
    { write: "single", also: 0 },
    ...ALSO_COUNTS.map((also) => ({ write: "also" as const, also })),
    { write: "windowed", also: 0 },
  ];
  let offsets: bigint[] | undefined;
  for (const [v, variant] of variants.entries()) {
    if (variant.write === "windowed" && !full) {
      r.run.writes.push({
        players,
        ...variant,
        skipped: `its state (15 to 33 keys of ${size(players)} members) does not fit the memory budget`,
      });
      continue;
    }
    const main = variant.write === "windowed" ? boards.windowed : boards.plain;
    const also = boards.also.slice(0, variant.also);
    const rng = rngFor(ctx.plan.seed, 1000 + v);
    // players drawn into their partitions, their records encoded once their partition's chunk is taken
    const chunks = new PartitionChunks<string>(
      BENCH_SLOTS,
      loadConfig({}).applyBatch,
      () => {
        const id = playerId(rng.nextInt(players));
        return { partition: slotOf(id, BENCH_SLOTS), item: id };
      },
      offsets,
    );
    const next = () => {
      const c = chunks.next();
      return {
        ...c,
        items: c.items.map((id) => {
          const s = source.draw(rng);
          return encodeRecord(main, also, { playerId: id, value: s.points, timestampMs: s.reachedAtMs }, nowMs);
        }),
      };
    };
    ctx.say(`  ${size(players)}: ${writeLabel(variant)}`);
    const figures = await measureApply({ writer, redis, boards: BENCH_SPECS, next, plan: ctx.plan.boards.writes });
    offsets = chunks.offsets();
    r.run.writes.push({ players, ...variant, figures });
    ctx.say(`    ${figures.recordsPerSec.toLocaleString("en-US")} records/s, Redis ${figures.redisCpuUsPerRecord} µs/record`);
  }
}
