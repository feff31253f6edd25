/**
 * AdminService handlers (admin token required, see main.ts): rebuild shards from the log,
 * streaming each shard's progress. Rebuilds of several shards run in parallel.
 */
import type { Admin, Kafka } from "kafkajs";
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Phase } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { Config } from "@ladder/common/config";
import { invalidArgument, notFound } from "@ladder/common/errors";
import type { ImplOf } from "@ladder/common/grpc-adapter";
import type { Logger } from "@ladder/common/logger";
import { buildPlacement } from "@ladder/common/placement";
import { rebuildShard, type RebuildMode, type RebuildProgress } from "@ladder/store/writer";
import { viewProblem } from "@ladder/common/validate";

export interface AdminDeps {
  config: Config;
  kafka: Kafka;
  admin: Admin;
  log: Logger;
}

export function adminService({ config, kafka, admin, log }: AdminDeps): ImplOf<typeof AdminService> {
  const placement = buildPlacement(config.shards.map((s) => s.id), config.numSlots);
  return {
    async rebuildShards(req, send) {
      const ids = req.shardIds.length ? req.shardIds : config.shards.map((s) => s.id);
      const shards = ids.map((id) => config.shards.find((s) => s.id === id) ?? notFoundShard(id));
      const mode = modeOf(req, config);
      await admin.connect();
      const report = (p: RebuildProgress) =>
        send({ shardId: p.shardId, phase: p.done ? Phase.DONE : Phase.REPLAYING, eventsReplayed: BigInt(p.replayed), eventsPerSecond: p.perSecond, lag: BigInt(p.lag), etaMs: BigInt(p.etaMs) });
      await Promise.all(shards.map((s) => rebuildShard({
        kafka, admin, topic: config.scoreTopic, shardId: s.id, slots: placement.slotsOf.get(s.id) ?? [], redisUrl: s.redisUrl,
        keyPrefix: config.keyPrefix, boards: config.boards, applyBatch: config.applyBatch, dedupWindowMs: config.dedupWindowMs,
        mode, onProgress: report, log: log.child({ shardId: s.id }),
      })));
    },
  };
}

function notFoundShard(id: string): never {
  throw notFound(`no shard "${id}"`);
}

function modeOf(req: { auditView: string; asOfTimestampMs: bigint; asOfOffsets: Array<{ partition: number; offset: bigint }> }, config: Config): RebuildMode {
  if (req.auditView === "") {
    if (req.asOfTimestampMs !== 0n || req.asOfOffsets.length) throw invalidArgument("as_of_timestamp_ms and as_of_offsets need an audit_view");
    return { kind: "swap", stagingDb: config.rebuildDb, readyLag: config.readyLag };
  }
  const problem = viewProblem(req.auditView);
  if (problem) throw invalidArgument(`audit_view: ${problem}`);
  if (req.asOfTimestampMs < 0n) throw invalidArgument("as_of_timestamp_ms must not be negative");
  for (const o of req.asOfOffsets) {
    if (o.partition >= config.numSlots || o.offset < -1n) throw invalidArgument(`as_of_offsets: partition ${o.partition} offset ${o.offset} is not in this cluster`);
  }
  return { kind: "audit", view: req.auditView, asOfOffsets: new Map(req.asOfOffsets.map((o) => [o.partition, o.offset])), asOfTimestampMs: Number(req.asOfTimestampMs) };
}
