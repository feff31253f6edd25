/**
 * One router process: LeaderboardService and AdminService over all shards, health, metrics.
 * Alone, it serves its own metrics and logs its ready line; as one of several processes
 * (processes.ts), it shares its metrics with the supervising process and tells it its port.
 */
import type { Config } from "@ladder/platform/config";
import { ResumeTokens } from "./push/resume-token.js";
import { Authenticator, requireAdmin, requireRole } from "@ladder/platform/auth";
import { addService, listen, newServer, shutdown } from "@ladder/platform/grpc-adapter";
import { serverCredentials } from "@ladder/platform/tls";
import { HealthRegistry, ServingStatus } from "@ladder/platform/health";
import type { Logger } from "@ladder/platform/logger";
import { shareMetricsWithClusterPrimary, startMetricsServer } from "@ladder/platform/metrics";
import { onShutdown } from "@ladder/platform/shutdown";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { decodeToken } from "@ladder/model/consistency-token";
import { TopicIds } from "@ladder/log/topic-ids";
import { LogClient } from "@ladder/log/log-client";
import { TournamentReads } from "./read/tournament-reads.js";
import { LeagueReads } from "./read/league-reads.js";
import { TeamReads } from "./read/team-reads.js";
import { boardsTopicOf, followBoardDefinitions } from "@ladder/log/board-definitions-follower";
import { followPeriodCloses } from "@ladder/log/period-closes";
import type { RecordProducer } from "@ladder/log/record-producer";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { adminService } from "./control/admin-service.js";
import { boardAdmin, teamBoardsOf } from "./control/board-admin.js";
import { startCloser } from "./control/closer.js";
import { startTeamDeriver } from "./control/team-deriver.js";
import { startRetainer } from "./control/retainer.js";
import { moderationService } from "./control/moderation.js";
import { playerExport } from "./control/player-export.js";
import { clusterStatus } from "./control/cluster-status.js";
import { leaderboardService, type TokenWaiter } from "./read/leaderboard-service.js";
import { LogEnds } from "@ladder/log/log-ends";
import { waitApplied } from "./read/wait-applied.js";
import { routerMetrics } from "./metrics.js";
import { Queries } from "./read/queries.js";
import { ShardPool } from "./read/shard-pool.js";
import { retryAcrossMoves } from "./read/moves.js";
import { defaultMaxEntries, RankIndex } from "./rank-index/rank-index.js";
import { WatchHub } from "./push/watch-hub.js";
import { watchStreams } from "./push/watch-streams.js";
import { CallerSlots, callerOf } from "./push/caller-slots.js";
import { reshardService } from "./control/reshard.js";
import { followPlacement, placementOrExit } from "@ladder/log/placement-follower";

/** `streamSecret`: what resume tokens are signed with (LADDER_STREAM_SECRET, or one made by main.ts). */
export async function runRouter(config: Config, log: Logger, o: { clusterWorker: boolean; streamSecret: string }): Promise<void> {
  // GET /metrics, from the start: served here, or by the supervising process from what this one shares
  let metrics: { port: number; close(): Promise<void> } | undefined;
  if (o.clusterWorker) shareMetricsWithClusterPrimary();
  else metrics = await startMetricsServer({ listen: config.routerMetricsListen, log });
  const server = newServer();
  const auth = new Authenticator(config.tokens, config.readsOpen);
  const logClient = LogClient.unconnected(
    config.kafkaBrokers,
    "ladder-router-admin",
    log.child({ component: "kafka" }),
    config.kafkaSecurity,
  );
  // its admin connects on first use: for rebuilds and to check consistency tokens
  // what the control plane writes (definitions, deletion markers, placements) goes out under its own login
  const control = LogClient.unconnected(
    config.kafkaBrokers,
    "ladder-router-control",
    log.child({ component: "kafka-control" }),
    config.kafkaControlSecurity,
  );
  // the placement read before serving, then followed: each newer one swaps the routing table (placement-log.ts)
  const placement = await placementOrExit(followPlacement(config, logClient, log.child({ component: "placement" }), control), log);
  const pool = new ShardPool({
    placement: placement.current,
    topic: config.scoreTopic,
    boards: config.boards,
    recordCountBuckets: config.recordCountBuckets,
    keyPrefix: config.keyPrefix,
    timeoutMs: config.shardTimeoutMs,
    replicaMaxLagMs: config.replicaMaxLagMs,
    login: config.redisLogin,
    log: log.child({ component: "shards" }),
  });
  const moves = { epoch: pool.epoch, changedAt: 0, running: 0 }; // moves.ts
  placement.onChange((p) => {
    pool.swap(p);
    [moves.epoch, moves.changedAt] = [p.epoch, performance.now()];
    log.info({ epoch: p.epoch, shards: p.shards.map((s) => s.id) }, "placement changed: reading by the new one");
  });
  const down = await pool.connected();
  if (down.length) log.warn({ shards: down }, "shards not reachable yet: their reads answer UNAVAILABLE until they are");
  const topicIds = new TopicIds(config.kafkaBrokers, "ladder-router-ids", config.kafkaSecurity);
  const logEnds = new LogEnds(logClient, config.scoreTopic, log.child({ component: "log-ends" }));
  // every board definition read before serving, then followed (model/src/board-definitions.ts)
  const definitions = await followBoardDefinitions(config, logClient, log.child({ component: "boards" }));
  const boards = { forBoard: (board: string) => definitions.catalog.forBoard(board) };
  // the periods' close events read before serving, then followed (log/src/period-closes.ts)
  const closes = await followPeriodCloses(config, logClient, log.child({ component: "closes" }));
  let producer: Promise<RecordProducer> | undefined;
  const connectProducer = () =>
    (producer ??= control.producer({ idempotent: true }).catch((err: unknown) => {
      producer = undefined;
      throw err;
    }));
  const waitFor: TokenWaiter = async (token, deadlineMs) => {
    const required = decodeToken(token, config.numSlots);
    if (required.size === 0) return;
    await logEnds.check(required);
    await waitApplied(pool, required, config.consistencyWaitMs, deadlineMs);
  };
  // GetRank of the boards named counts the other shards from copies kept in memory (rank-index/)
  const rankIndex = config.rankIndexBoards.length
    ? new RankIndex({
        pool,
        keyPrefix: config.keyPrefix,
        boards: new Set(config.rankIndexBoards),
        maxLagMs: config.rankIndexMaxLagMs,
        maxEntries: config.rankIndexMaxEntries || defaultMaxEntries(),
        log: log.child({ component: "rank-index" }),
      })
    : undefined;
  const queries = new Queries(pool, boards, {
    rankIndex,
    topCache: { maxAgeMs: config.topCacheMs, depth: config.topCacheDepth, count: (outcome) => routerMetrics().topCacheOf(outcome).inc() },
    histogramCache: { maxAgeMs: config.histogramCacheMs, count: (outcome) => routerMetrics().histogramCacheOf(outcome).inc() },
  });
  const primaryQueries = new Queries(pool.primaries(), boards);
  // push: WatchTop, WatchPlayer, fed by the shards' change streams (watch/), read without caches
  const hub = new WatchHub({ pool, keyPrefix: config.keyPrefix, log: log.child({ component: "watch" }) });
  placement.onChange(() => hub.onPlacement());
  const { stop: stopStreams, ...streams } = watchStreams(
    hub,
    new Queries(pool, boards),
    {
      bufferBytes: config.watchBufferBytes,
      stallMs: config.watchStallMs,
      slots: new CallerSlots(config.watchStreamsPerCaller),
      callerOf: (ctx) => {
        const principal = auth.identify(ctx.metadata);
        return callerOf(principal.roles.size > 0 ? principal.name : undefined, ctx.peer);
      },
    },
    new ResumeTokens(o.streamSecret),
  );
  addService(
    server,
    LeaderboardService,
    {
      ...retryAcrossMoves(
        leaderboardService(
          queries,
          waitFor,
          primaryQueries,
          new TournamentReads({ pool, catalog: () => definitions.catalog, queries: primaryQueries, numSlots: config.numSlots }),
          new LeagueReads({ pool, catalog: () => definitions.catalog, queries: primaryQueries, numSlots: config.numSlots }),
          new TeamReads({ pool, catalog: () => definitions.catalog, queries: primaryQueries, numSlots: config.numSlots }),
        ),
        moves,
      ),
      ...streams,
    },
    log.child({ component: "grpc" }),
    requireRole(auth, "read"),
  );
  const boardRpcs = boardAdmin({
    definitions,
    topic: boardsTopicOf(config.scoreTopic),
    scoreTopic: config.scoreTopic,
    partitions: config.numSlots,
    producer: connectProducer,
    sizeOf: (stored) => primaryQueries.size(stored),
    floorsOf: async (stored) => (await pool.fanOut(pool.scope("").stores, (s) => s.floors(stored))).flat(),
    closes,
    log: log.child({ component: "boards" }),
  });
  const closer = startCloser({
    definitions,
    pool,
    scoreTopic: config.scoreTopic,
    partitions: config.numSlots,
    producer: connectProducer,
    closes,
    kafka: control.kafka,
    queries: primaryQueries,
    crashAt: config.closerCrashAt,
    log: log.child({ component: "closer" }),
  });
  const deriver = startTeamDeriver({
    definitions,
    pool,
    logClient,
    scoreTopic: config.scoreTopic,
    numSlots: config.numSlots,
    producer: connectProducer,
    log: log.child({ component: "team-deriver" }),
  });
  const retainer = startRetainer({
    definitions,
    pool,
    scoreTopic: config.scoreTopic,
    partitions: config.numSlots,
    producer: connectProducer,
    queries: primaryQueries,
    intervalMs: config.retentionIntervalMs,
    log: log.child({ component: "retainer" }),
  });
  const moderationRpcs = moderationService({
    scoreTopic: config.scoreTopic,
    numSlots: config.numSlots,
    producer: connectProducer,
    boards,
    rulesOf: (board) => definitions.catalog.definition(board)?.rules,
    teamBoardsOf: (board) => teamBoardsOf(definitions.catalog, board),
    auditLines: (player, board, limit, deadlineMs) => primaryQueries.auditLines(player, board, limit, deadlineMs),
    callerOf: (metadata) => auth.identify(metadata).name,
    log: log.child({ component: "moderation" }),
  });
  const statusRpc = clusterStatus({ config, pool, logClient });
  const reshardRpcs = reshardService({ config, placement, pool, moves, logClient, topicIds, log: log.child({ component: "reshard" }) });
  const rebuildRpcs = adminService({
    config,
    placement: () => pool.placement,
    logClient,
    topicIds,
    log: log.child({ component: "admin" }),
  });
  addService(
    server,
    AdminService,
    { ...rebuildRpcs, ...boardRpcs, ...statusRpc, ...reshardRpcs, ...moderationRpcs, ...playerExport(primaryQueries) },
    log.child({ component: "grpc" }),
    requireAdmin(auth),
  );
  const health = new HealthRegistry();
  health.set(LeaderboardService.typeName, ServingStatus.SERVING);
  health.set(AdminService.typeName, ServingStatus.SERVING);
  health.register(server, log);
  const port = await listen(server, config.routerListen, serverCredentials(config));
  if (o.clusterWorker) process.send!({ ladder: "listening", port });
  else log.info({ address: config.routerListen, port, metricsPort: metrics!.port, shards: config.shards.length }, "router listening");

  onShutdown(log, async () => {
    health.drain();
    stopStreams();
    await closer.stop();
    await retainer.stop();
    await deriver.stop();
    await shutdown(server);
    await Promise.all([hub.stop(), rankIndex?.stop()]);
    await pool.close();
    // each follower's stop waits for its fetch in flight (up to LADDER_FETCH_WAIT_MS): together, not in turn
    await Promise.all([placement.stop(), definitions.stop(), closes.stop()]);
    if (producer) await (await producer.catch(() => undefined))?.disconnect();
    await logClient.close();
    await topicIds.close();
    await metrics?.close();
  });
}
