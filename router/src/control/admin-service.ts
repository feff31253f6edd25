/**
 * AdminService handlers (admin token required, see main.ts): rebuild shards from the log,
 * streaming each shard's progress, and list the rebuilds running. Rebuilds of several shards
 * run in parallel.
 *
 * A rebuild takes its shard's rebuild lease first (store/src/writer/rebuild-lease.ts); a call
 * takes the leases of all its shards before starting any, or none: one already held answers
 * ABORTED naming its holder. The call's cancellation (the client cancels or goes away) and its
 * deadline abort every rebuild of the call that has not swapped yet; so does the first shard
 * that fails, and the call then fails with that shard's error once the others have stopped
 * and cleaned up. With snapshots on, a swap rebuild starts from the shard's newest usable
 * snapshot (store/src/writer/snapshot.ts) and reports which.
 *
 * Rebuild progress is also kept in this router's metrics (metrics.ts): which shards are
 * rebuilding, records replayed, the lag left, and how rebuilds ended.
 */
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Phase } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { Config } from "@ladder/platform/config";
import { Code, LadderError, deadlineExceeded, invalidArgument, notFound, unavailable } from "@ladder/model/errors";
import type { CallContext, ImplOf } from "@ladder/platform/grpc-adapter";
import type { RedisLogin } from "@ladder/platform/redis-login";
import type { Logger } from "@ladder/platform/logger";
import type { TopicIds } from "@ladder/log/topic-ids";
import type { LogClient } from "@ladder/log/log-client";
import type { ClusterPlacement } from "@ladder/model/placement-record";
import { builtFrom, shardStamp } from "@ladder/store";
import { RebuildLease, leaseMode, rebuildShard, runningRebuild, type RebuildMode, type RebuildProgress } from "@ladder/store/writer";
import { snapshotTopicOf } from "@ladder/log/snapshot-topic";
import { viewProblem } from "@ladder/model/validate";
import { codeName, routerMetrics } from "../metrics.js";

export interface AdminDeps {
  config: Config;
  /** The placement rebuilds are made for: the one this router reads by. */
  placement: () => ClusterPlacement;
  logClient: LogClient;
  /** The score topic's id, which rebuilt shards record as their source (store identity.ts). */
  topicIds: TopicIds;
  log: Logger;
}

type Shard = Config["shards"][number];

/** The rebuild rpcs; the board rpcs are board-admin.ts's. */
export function adminService({
  config,
  placement: placementNow,
  logClient,
  topicIds,
  log,
}: AdminDeps): Pick<ImplOf<typeof AdminService>, "rebuildShards" | "listRebuilds"> {
  const shardsOf = (ids: readonly string[]) => {
    const { shards } = placementNow();
    return [...new Set(ids.length ? ids : shards.map((s) => s.id))].map((id) => shards.find((s) => s.id === id) ?? notFoundShard(id));
  };
  return {
    async rebuildShards(req, send, ctx) {
      const shards = shardsOf(req.shardIds);
      const { placement } = placementNow();
      const mode = modeOf(req, config);
      const call = callStop(ctx);
      try {
        await logClient.connect();
        const topicId = await topicIds.idOf(config.scoreTopic);
        if (!topicId)
          throw new LadderError(Code.FAILED_PRECONDITION, `score topic ${config.scoreTopic} does not exist: nothing to rebuild from`);
        const stampOf = (id: string) =>
          shardStamp({
            shardId: id,
            topic: config.scoreTopic,
            numSlots: config.numSlots,
            slots: placement.slotsOf.get(id) ?? [],
            boards: config.boards,
            recordCountBuckets: config.recordCountBuckets,
          });
        const leases = await takeLeases(shards, mode, config.keyPrefix, config.redisAdminLogin, log);
        const ids = new Map([...leases].map(([id, lease]) => [id, lease.holder.id]));
        const progress = rebuildMetrics(
          mode,
          shards.map((s) => s.id),
        );
        for (const s of shards) send({ shardId: s.id, phase: Phase.REPLAYING, rebuildId: ids.get(s.id) });
        const report = (p: RebuildProgress) => {
          progress.report(p);
          send({
            shardId: p.shardId,
            phase: p.done ? Phase.DONE : Phase.REPLAYING,
            eventsReplayed: BigInt(p.replayed),
            eventsPerSecond: p.perSecond,
            lag: BigInt(p.lag),
            etaMs: BigInt(p.etaMs),
            rebuildId: ids.get(p.shardId),
            snapshotId: p.snapshot?.id ?? "",
            snapshotRecords: BigInt(p.snapshot?.records ?? 0),
          });
        };
        // the first shard to fail stops the others; the call fails with its error
        const group = new AbortController();
        const signal = AbortSignal.any([call.signal, group.signal]);
        let first: unknown;
        const results = await Promise.allSettled(
          shards.map((s) =>
            rebuildShard({
              logClient,
              topic: config.scoreTopic,
              shardId: s.id,
              stamp: stampOf(s.id),
              builtFrom: builtFrom(stampOf(s.id), topicId),
              slots: placement.slotsOf.get(s.id) ?? [],
              redisUrl: s.redisUrl,
              login: config.redisAdminLogin,
              keyPrefix: config.keyPrefix,
              boards: config.boards,
              applyBatch: config.applyBatch,
              dedupWindowMs: config.dedupWindowMs,
              mode,
              onProgress: report,
              log: log.child({ shardId: s.id }),
              lease: leases.get(s.id),
              signal,
              ...(config.snapshots ? { snapshots: { topic: snapshotTopicOf(config.scoreTopic) } } : {}),
            }).then(
              () => progress.ended(s.id),
              (err: unknown) => {
                progress.ended(s.id, err);
                if (first === undefined && !call.signal.aborted) {
                  first = err;
                  group.abort(
                    new LadderError(Code.ABORTED, `stopped because the rebuild of ${s.id} failed: ${LadderError.from(err).message}`),
                  );
                }
                throw err;
              },
            ),
          ),
        );
        if (call.signal.aborted) throw call.signal.reason;
        if (first !== undefined) throw first;
        const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed) throw failed.reason;
      } finally {
        call.dispose();
      }
    },

    async listRebuilds(req) {
      const shards = shardsOf(req.shardIds);
      const running = await Promise.all(
        shards.map(async (s) => {
          try {
            return { shardId: s.id, holder: await runningRebuild(s.redisUrl, config.keyPrefix, config.redisAdminLogin) };
          } catch (err) {
            throw unavailable(`${s.id}: cannot read its rebuild lease: ${(err as Error).message}`, err);
          }
        }),
      );
      return {
        rebuilds: running.flatMap(({ shardId, holder }) =>
          holder
            ? [
                {
                  shardId,
                  rebuildId: holder.id,
                  mode: holder.mode,
                  holder: holder.holder,
                  startedAtMs: BigInt(Number.isFinite(holder.startedAtMs) ? holder.startedAtMs : 0),
                },
              ]
            : [],
        ),
      };
    },
  };
}

/** The metrics of a call's rebuilds of `shardIds` (running from now on): progress reports, then how each ended. */
function rebuildMetrics(mode: RebuildMode, shardIds: readonly string[]) {
  const m = routerMetrics();
  const replayed = new Map<string, number>();
  for (const shard of shardIds) m.rebuildsRunning.set({ shard }, 1);
  return {
    report(p: RebuildProgress): void {
      m.rebuildReplayed.inc({ shard: p.shardId }, Math.max(0, p.replayed - (replayed.get(p.shardId) ?? 0)));
      replayed.set(p.shardId, p.replayed);
      m.rebuildLag.set({ shard: p.shardId }, p.lag);
    },
    ended(shardId: string, err?: unknown): void {
      m.rebuildsRunning.set({ shard: shardId }, 0);
      if (err === undefined) m.rebuildLag.set({ shard: shardId }, 0);
      m.rebuilds.inc({ shard: shardId, mode: mode.kind, code: err === undefined ? "OK" : codeName(LadderError.from(err).code) });
    },
  };
}

/** Takes the rebuild lease of every shard, in order, or none (releasing those taken) and throws. */
async function takeLeases(
  shards: readonly Shard[],
  mode: RebuildMode,
  keyPrefix: string,
  login: RedisLogin,
  log: Logger,
): Promise<Map<string, RebuildLease>> {
  const leases = new Map<string, RebuildLease>();
  try {
    for (const s of shards) {
      leases.set(
        s.id,
        await RebuildLease.acquire({
          redisUrl: s.redisUrl,
          login,
          keyPrefix,
          shardId: s.id,
          mode: leaseMode(mode),
          log: log.child({ shardId: s.id }),
        }),
      );
    }
    return leases;
  } catch (err) {
    await Promise.all([...leases.values()].map((l) => l.release()));
    throw err;
  }
}

/** Aborts when the caller cancels (CANCELLED) or the call's deadline passes (DEADLINE_EXCEEDED). */
function callStop(ctx: CallContext): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const cancelled = () => controller.abort(new LadderError(Code.CANCELLED, "the caller cancelled the rebuild"));
  ctx.signal.addEventListener("abort", cancelled, { once: true });
  if (ctx.signal.aborted) cancelled();
  const timer = Number.isFinite(ctx.deadlineMs)
    ? setTimeout(
        () => controller.abort(deadlineExceeded("the rebuild was stopped at the call's deadline")),
        Math.max(0, ctx.deadlineMs - Date.now()),
      )
    : undefined;
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", cancelled);
    },
  };
}

function notFoundShard(id: string): never {
  throw notFound(`no shard "${id}"`);
}

function modeOf(
  req: { auditView: string; asOfTimestampMs: bigint; asOfOffsets: Array<{ partition: number; offset: bigint }> },
  config: Config,
): RebuildMode {
  if (req.auditView === "") {
    if (req.asOfTimestampMs !== 0n || req.asOfOffsets.length)
      throw invalidArgument(
        "audit_view: must be set with as_of_timestamp_ms or as_of_offsets (a rebuild as of a point makes a view), got none",
      );
    return { kind: "swap", stagingDb: config.rebuildDb, readyLag: config.readyLag };
  }
  const problem = viewProblem(req.auditView);
  if (problem) throw invalidArgument(`audit_view: ${problem}`);
  if (req.asOfTimestampMs < 0n) throw invalidArgument(`as_of_timestamp_ms: must be 0 or more, got ${req.asOfTimestampMs}`);
  for (const o of req.asOfOffsets) {
    if (o.partition >= config.numSlots || o.offset < -1n)
      throw invalidArgument(
        `as_of_offsets: each must be a partition 0..${config.numSlots - 1} and an offset of -1 or more, got partition ${o.partition} offset ${o.offset}`,
      );
  }
  return {
    kind: "audit",
    view: req.auditView,
    asOfOffsets: new Map(req.asOfOffsets.map((o) => [o.partition, o.offset])),
    asOfTimestampMs: Number(req.asOfTimestampMs),
  };
}
