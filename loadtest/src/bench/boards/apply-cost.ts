/**
 * What a record costs on the shard's apply path: records already encoded as ingest writes them
 * (what Kafka hands the shard node) are prepared (prepareEvent: decode, re-check, quantize) and
 * applied (ShardWriter.apply: one apply-events.lua call) in chunks of one partition, as the
 * shard node's apply loop does (apply-loop.ts: `chunk` records per call, partitions applied
 * concurrently: here `inFlight` calls at once, never two of one partition).
 *
 * A run first applies records made on the fly for `warmupMs` (uncounted: it warms the sets and
 * the scripts and estimates the rate, the time spent making records left out), then makes the
 * records of about `durationMs` at that rate beforehand and applies them, timed: records/s, and per record the Redis server's CPU
 * (INFO cpu: used_cpu_user + used_cpu_sys, everything the server did), the time Redis spent
 * in the apply script (INFO commandstats: EVALSHA and EVAL) and the bench process's CPU
 * (prepareEvent, ioredis). Every call must answer in sequence with all its records applied.
 */
import type { Redis } from "ioredis";
import type { BoardSpecs } from "@ladder/model/board-spec";
import { prepareEvent, type ShardWriter } from "@ladder/store/writer";
import { InFlightLimit } from "../../seed/in-flight-limit.js";
import { redisCommandStats, redisCpuSeconds } from "../infra/cpu-meter.js";
import type { PartitionChunk } from "./partition-chunks.js";
import { round2 } from "../output/format.js";

export interface ApplyPlan {
  warmupMs: number;
  durationMs: number;
  inFlight: number;
}

export interface ApplyFigures {
  records: number;
  /** Apply-script calls. */
  calls: number;
  seconds: number;
  recordsPerSec: number;
  /** Redis server CPU (INFO cpu) per record, µs. */
  redisCpuUsPerRecord: number;
  /** Time Redis spent in the apply script (INFO commandstats, EVALSHA + EVAL) per record, µs. */
  scriptUsPerRecord: number;
  /** The bench process's CPU (prepareEvent, ioredis) per record, µs. */
  benchCpuUsPerRecord: number;
  warmup: { records: number; seconds: number };
}

/** Prepares and applies one chunk; throws unless every record was applied in sequence. */
export async function applyChunk(writer: ShardWriter, boards: BoardSpecs, chunk: PartitionChunk<Buffer>): Promise<void> {
  const events = chunk.items.flatMap((value, i) => {
    const { events: prepared, problem } = prepareEvent(value, chunk.firstOffset + BigInt(i), boards);
    if (problem) throw new Error(`record ${chunk.partition}:${chunk.firstOffset + BigInt(i)} could not be prepared: ${problem}`);
    return prepared;
  });
  const r = await writer.apply(chunk.partition, events);
  if (r.drift !== undefined || !r.inSequence || r.applied !== chunk.items.length)
    throw new Error(
      `apply of partition ${chunk.partition} from offset ${chunk.firstOffset}: ${r.drift !== undefined ? `drift (${r.drift})` : `${r.applied} of ${chunk.items.length} applied, in sequence: ${r.inSequence}, last offset ${r.lastOffset}`}`,
    );
}

/** Applies chunks from `next` until it returns undefined, `inFlight` calls at once, one partition's calls in order. */
async function applyAll(
  writer: ShardWriter,
  boards: BoardSpecs,
  next: () => PartitionChunk<Buffer> | undefined,
  inFlight: number,
): Promise<{ records: number; calls: number }> {
  const limit = new InFlightLimit(inFlight);
  const tails = new Map<number, Promise<void>>();
  let records = 0;
  let calls = 0;
  for (let c = next(); c !== undefined; c = next()) {
    const chunk = c;
    const after = tails.get(chunk.partition) ?? Promise.resolve();
    let finished!: Promise<void>;
    // run() returns once the call has room and started; a failure comes back from a later run() or drain()
    await limit.run(
      () =>
        (finished = (async () => {
          await after;
          await applyChunk(writer, boards, chunk);
          records += chunk.items.length;
          calls++;
        })()),
    );
    tails.set(
      chunk.partition,
      finished.catch(() => {}),
    );
  }
  await limit.drain();
  return { records, calls };
}

/** Times the apply of chunks from `next` (each encoded when asked for: see above). */
export async function measureApply(o: {
  writer: ShardWriter;
  redis: Redis;
  boards: BoardSpecs;
  next: () => PartitionChunk<Buffer>;
  plan: ApplyPlan;
}): Promise<ApplyFigures> {
  const { writer, redis, boards, plan } = o;
  const warmStart = performance.now();
  let making = 0; // ms spent making records in the warm-up: the timed part has them made beforehand
  const warm = await applyAll(
    writer,
    boards,
    () => {
      if (performance.now() - warmStart >= plan.warmupMs) return undefined;
      const t0 = performance.now();
      const c = o.next();
      making += performance.now() - t0;
      return c;
    },
    plan.inFlight,
  );
  const warmSeconds = (performance.now() - warmStart) / 1000;
  const perChunk = warm.records / Math.max(1, warm.calls);
  const rate = warm.records / Math.max(0.1 * warmSeconds, warmSeconds - making / 1000);
  const wanted = Math.max(2 * plan.inFlight, Math.ceil((rate * plan.durationMs) / 1000 / perChunk));
  const ready = Array.from({ length: wanted }, () => o.next());
  const before = await serverCounters(redis);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let i = 0;
  const m = await applyAll(writer, boards, () => ready[i++], plan.inFlight);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const after = await serverCounters(redis);
  const per = (x: number) => round2(x / m.records);
  return {
    records: m.records,
    calls: m.calls,
    seconds: round2(seconds),
    recordsPerSec: Math.round(m.records / seconds),
    redisCpuUsPerRecord: per((after.cpuSeconds - before.cpuSeconds) * 1e6),
    scriptUsPerRecord: per(after.scriptUsec - before.scriptUsec),
    benchCpuUsPerRecord: per(cpu.user + cpu.system),
    warmup: { records: warm.records, seconds: round2(warmSeconds) },
  };
}

async function serverCounters(redis: Redis): Promise<{ cpuSeconds: number; scriptUsec: number }> {
  const [cpu, stats] = await Promise.all([redis.info("cpu"), redis.info("commandstats")]);
  return { cpuSeconds: redisCpuSeconds(cpu), scriptUsec: redisCommandStats(stats, ["evalsha", "eval"]).usec };
}
