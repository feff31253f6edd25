/**
 * What the benchmarks that compare boards by their whole-cluster CPU per call share (competitions,
 * columns): one 3-shard cluster with the bench's log client and an admin client, and the measured
 * loop of SubmitScores calls, from the first write until the shards applied every acknowledged
 * update (and whatever the benchmark waits for after that), its cluster's rest rates taken out.
 */
import { LadderClient } from "@ladder/client";
import type { LogClient } from "@ladder/log/log-client";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { keyLayout } from "@ladder/store";
import { seededCount, untilApplied } from "../../seed/apply-watch.js";
import type { BenchContext } from "../context.js";
import type { ClosedLoopPlan } from "../plan.js";
import { BENCH_KEY_PREFIX } from "../infra/bench-board.js";
import { benchLogClient } from "../infra/infra-fixtures.js";
import { startIngestCluster, type IngestCluster } from "../infra/ingest-cluster.js";
import { measureClosedLoop } from "../infra/measure.js";
import { clusterCpuFigures, clusterProcesses, readCpu, restCores, type ClusterCpuFigures, type ClusterProcess } from "./cluster-cpu.js";

const REST_S = 3;
const DRAIN_STALL_MS = 300_000;

export interface BenchCluster {
  cluster: IngestCluster;
  /** The bench's reader of the score log's end offsets. */
  client: LogClient;
  admin: LadderClient;
  /** Every process of the cluster, Kafka's included, as cluster-cpu.ts reads them. */
  processes: readonly ClusterProcess[];
  close(): Promise<void>;
}

/** A 3-shard cluster (Kafka, 3 redis-servers without persistence, 3 shard nodes, router, ingest) and its clients. */
export async function startBenchCluster(ctx: BenchContext, clientId: string): Promise<BenchCluster> {
  ctx.say("starting a 3-shard cluster (Kafka, 3 redis-servers without persistence, 3 shard nodes, router, ingest)");
  const cluster = await startIngestCluster(ctx, { shards: 3 });
  const broker = await ctx.kafka();
  const client = await benchLogClient(ctx, broker, clientId);
  const admin = new LadderClient({
    router: cluster.services.routerAddress,
    ingest: cluster.services.ingestAddress,
    token: cluster.adminToken,
    timeoutMs: 60_000,
  });
  return {
    cluster,
    client,
    admin,
    processes: clusterProcesses(cluster, broker.process?.pid),
    async close() {
      admin.close();
      await client.close();
      await cluster.stop();
    },
  };
}

/** Waits until the shards applied every record written to the log since `start` (its end offsets then). */
export async function untilWritten(b: BenchCluster, start: ReadonlyMap<number, bigint>): Promise<{ records: number }> {
  const end = await b.client.endOffsetsOnce(b.cluster.topic);
  const last = new Map([...end].filter(([q, o]) => o > (start.get(q) ?? 0n)).map(([q, o]) => [q, o - 1n]));
  await untilApplied(b.cluster.redis, keyLayout(BENCH_KEY_PREFIX).offsets, last, DRAIN_STALL_MS);
  return { records: seededCount(start, end) };
}

export interface WriteLoopFigures {
  /** Updates acknowledged a second, over the measured window. */
  ackedPerSec: number;
  /** From the end of the load until every acknowledged update was applied, ms. */
  drainMs: number;
  clusterCpu: ClusterCpuFigures;
}

/**
 * The cluster at rest over REST_S seconds, then a closed loop of SubmitScores calls of `batch`
 * updates each (`updates()` makes one call's), then the wait until they are applied, then `after`
 * (its time is in the CPU window too). Whole-cluster CPU per acknowledged update.
 */
export async function measureWriteLoop(
  b: BenchCluster,
  o: {
    plan: ClosedLoopPlan;
    batch: number;
    updates(): MessageInitShape<typeof ScoreUpdateSchema>[];
    after?(loadEnd: number): Promise<void>;
  },
): Promise<WriteLoopFigures> {
  const start = await b.client.endOffsetsOnce(b.cluster.topic);
  let acknowledged = 0;
  const send = async () => {
    const res = await b.cluster.writer.ingest().submitScores({ updates: o.updates() }); // awaited before the sum: `x += await f()` reads x first
    acknowledged += res.accepted;
  };
  const rest = await restCores(b.processes, REST_S);
  const cpuAtStart = await readCpu(b.processes);
  const firstSend = performance.now();
  const m = await measureClosedLoop({ plan: o.plan, send });
  const loadEnd = performance.now();
  await untilWritten(b, start);
  const allApplied = performance.now();
  await o.after?.(loadEnd);
  const done = performance.now();
  return {
    ackedPerSec: Math.round(((m.calls - m.errors) * o.batch) / (m.elapsedMs / 1000)),
    drainMs: Math.round(allApplied - loadEnd),
    clusterCpu: clusterCpuFigures(b.processes, {
      start: cpuAtStart,
      end: await readCpu(b.processes),
      rest,
      seconds: (done - firstSend) / 1000,
      updates: acknowledged,
    }),
  };
}

/** A closed loop of reads (`send`), the cluster at rest over REST_S seconds before it: whole-cluster CPU per answered read. */
export async function measureReadLoop(
  b: BenchCluster,
  o: { plan: ClosedLoopPlan; send(): Promise<unknown> },
): Promise<{ perSec: number; clusterCpu: ClusterCpuFigures }> {
  let answered = 0;
  const rest = await restCores(b.processes, REST_S);
  const cpuAtStart = await readCpu(b.processes);
  const from = performance.now();
  const m = await measureClosedLoop({
    plan: o.plan,
    send: async () => {
      await o.send();
      answered++;
    },
  });
  const done = performance.now();
  return {
    perSec: Math.round((m.calls - m.errors) / (m.elapsedMs / 1000)),
    clusterCpu: clusterCpuFigures(b.processes, {
      start: cpuAtStart,
      end: await readCpu(b.processes),
      rest,
      seconds: (done - from) / 1000,
      updates: answered,
    }),
  };
}

export const REST_SECONDS = REST_S;
