/**
 * AdminService.Reshard: shards added or removed while the cluster serves (issue #13).
 *
 * THE MOVE. From placement P (epoch e) to P' (epoch e + 1: the balanced table of the new shard
 * list, placement.ts), only the shards whose slot set changes do anything, the new ones
 * included, while P keeps serving and every write keeps being applied by P's shard nodes:
 *   - a shard that stays moves IN PLACE (store/src/writer/move.ts): it replays only the
 *     partitions of the slots it gains into its live boards, where the readers of P leave them
 *     out, and sets aside the players of the slots it loses; at the cut-over (move-flip.lua) it
 *     becomes P' data, and its shard node deletes the departed players afterwards while the
 *     readers of P' leave them out. Its cost is the share that moves: about 1/N of the log and
 *     of the memory, not the whole shard twice;
 *   - a new shard is built as RebuildShards rebuilds a shard (store rebuild.ts: the replay of
 *     its slots' partitions into the spare Redis database), and swapped in (SWAPDB).
 * Either seeds the slots it gains from their old owners' newest snapshots where it can and
 * replays only the log after them (store/src/writer/move-seed.ts; seedSources below).
 * Each holds the shard's rebuild lease. A build that reaches the ready lag of the log's end
 * waits there (still applying the newest records) until every build has; then all cut over
 * together, P' is published (placement-log.ts), and the call returns once every shard that
 * moved in place has deleted its departed players (progress: BUILDING with the players left).
 *
 * WHY READS STAY EXACT. A cut-over shard holds P' slots under its P' stamp (identity.ts) and a
 * heartbeat marked not serving; every read checks each shard's stamp and heartbeat in the same
 * script as its data. So from the first cut-over on, reads by P are refused by the cut-over
 * shards, and reads by P' are refused by the shards not yet serving P' (not cut over yet, or
 * their node still catching up): no read mixes the two, and none counts a player twice or
 * misses one; within a shard moving in place, each placement's readers see exactly its slots
 * (the companions read-header.lua leaves out). The cost is a moment of refused reads, from the
 * first cut-over until the last changed shard's node has read P' and applied the records its
 * build had not (the router retries reads refused in that moment: moves.ts). Writes never
 * stop: the log is the truth.
 *
 * FAILURE. Before the cut-overs, any failure cancels every build (a rebuild deletes what it
 * wrote; a move in place is cancelled and its node deletes the arrivals) and P stays; nothing is
 * published. After the first cut-over P' is published whatever happens, as that shard holds P'
 * data: a shard whose cut-over failed then refuses reads under P' until RebuildShards rebuilds
 * it (the call's error names it).
 */
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ReshardResponse_Phase as Phase } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { Config, ShardAddress } from "@ladder/platform/config";
import { Code, LadderError, invalidArgument, unavailable } from "@ladder/model/errors";
import type { CallContext, ImplOf } from "@ladder/platform/grpc-adapter";
import type { TopicIds } from "@ladder/log/topic-ids";
import type { LogClient } from "@ladder/log/log-client";
import { redactUrl, type Logger } from "@ladder/platform/logger";
import type { RedisLogin } from "@ladder/platform/redis-login";
import { movedSlots, placementOf, type ClusterPlacement } from "@ladder/model/placement-record";
import type { PlacementLog } from "@ladder/log/placement-follower";
import { expandSentinelUrl, isSentinelUrl, parseSentinelName } from "@ladder/platform/redis-address";
import { builtFrom, openRedis, readyWithin, shardStamp } from "@ladder/store";
import { moveOf, movePending, RebuildLease, rebuildShard, type SeedSource } from "@ladder/store/writer";
import { snapshotTopicOf } from "@ladder/log/snapshot-topic";
import type { ShardPool } from "../read/shard-pool.js";

export interface ReshardDeps {
  config: Config;
  placement: PlacementLog;
  pool: ShardPool;
  /** The reshards running, counted while each moves (../read/moves.ts retries reads across them). */
  moves: { running: number };
  logClient: LogClient;
  topicIds: TopicIds;
  log: Logger;
}

const SHARD_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** The lease mode a reshard's rebuilds hold (ListRebuilds shows it). */
const LEASE_MODE = "reshard";

export function reshardService(d: ReshardDeps): Pick<ImplOf<typeof AdminService>, "reshard" | "getPlacement"> {
  return {
    async reshard(req, send, ctx) {
      const from = d.placement.current;
      const next = plan(
        from,
        req.add.map((a) => ({ id: a.id, redisUrl: a.redisUrl })),
        req.remove,
        d.config,
      );
      const changed = next.shards.filter((s) => !sameSlots(from, next, s.id));
      await reachable(
        next.shards.filter((s) => !from.shards.some((x) => x.id === s.id)),
        d.config.shardTimeoutMs,
        d.config.redisAdminLogin,
      );
      const moved = movedSlots(from.placement, next.placement);
      send({
        phase: Phase.PLANNED,
        fromEpoch: BigInt(from.epoch),
        toEpoch: BigInt(next.epoch),
        movedSlots: moved.map((m) => ({ slot: m.slot, fromShard: m.from, toShard: m.to })),
      });
      d.log.info(
        {
          from: from.epoch,
          to: next.epoch,
          shards: next.shards.map((s) => s.id),
          changed: changed.map((s) => s.id),
          movedSlots: moved.length,
        },
        "reshard planned",
      );
      const epochs = { fromEpoch: BigInt(from.epoch), toEpoch: BigInt(next.epoch) };
      d.moves.running++;
      const cutOverMs = await move(d, from, next, changed, ctx, {
        building: (p) => send({ phase: Phase.BUILDING, ...epochs, ...p }),
        cutOver: (ms) => send({ phase: Phase.CUT_OVER, ...epochs, cutOverMs: BigInt(Math.round(ms)) }),
        deleting: (shardId, left) => send({ phase: Phase.DELETING, ...epochs, shardId, playersLeft: BigInt(left) }),
      }).finally(() => d.moves.running--);
      send({ phase: Phase.DONE, ...epochs, cutOverMs: BigInt(Math.round(cutOverMs)) });
    },
    async getPlacement() {
      const p = d.pool.placement;
      return {
        epoch: BigInt(p.epoch),
        numSlots: p.placement.numSlots,
        shards: p.shards.map((s) => ({ id: s.id, redisUrl: redact(s.redisUrl), slots: [...(p.placement.slotsOf.get(s.id) ?? [])] })),
      };
    },
  };
}

/** The next placement: `add` and `remove` applied to `from`; INVALID_ARGUMENT naming the first problem. */
export function plan(
  from: ClusterPlacement,
  add: readonly ShardAddress[],
  remove: readonly string[],
  config: Pick<Config, "numSlots" | "sentinels">,
): ClusterPlacement {
  if (add.length === 0 && remove.length === 0) throw invalidArgument("add, remove: must name at least one shard between them, got none");
  const ids = new Set(from.shards.map((s) => s.id));
  for (const [i, a] of add.entries()) {
    if (!SHARD_ID.test(a.id)) throw invalidArgument(`add[${i}].id: "${a.id}" is not 1-64 of A-Z a-z 0-9 _ -`);
    if (ids.has(a.id)) throw invalidArgument(`add[${i}].id: shard "${a.id}" is already in the placement (epoch ${from.epoch})`);
    if (add.findIndex((x) => x.id === a.id) !== i) throw invalidArgument(`add[${i}].id: shard "${a.id}" is added twice`);
    const sentinel = isSentinelUrl(a.redisUrl) ? parseSentinelName(a.redisUrl) : undefined;
    if (typeof sentinel === "string" || (sentinel === undefined && !/^rediss?:\/\/[^/\s]+/.test(a.redisUrl)))
      throw invalidArgument(`add[${i}].redis_url: "${redact(a.redisUrl)}" is not redis://host:port or sentinel://master-name`);
  }
  for (const [i, id] of remove.entries()) {
    if (!ids.has(id)) throw invalidArgument(`remove[${i}]: shard "${id}" is not in the placement (epoch ${from.epoch})`);
    if (remove.indexOf(id) !== i) throw invalidArgument(`remove[${i}]: shard "${id}" is removed twice`);
  }
  const full = (url: string) =>
    isSentinelUrl(url) && !url.includes("/", "sentinel://".length) && config.sentinels.length
      ? expandSentinelUrl(url, config.sentinels)
      : url;
  const shards = [...from.shards.filter((s) => !remove.includes(s.id)), ...add.map((a) => ({ id: a.id, redisUrl: full(a.redisUrl) }))];
  if (shards.length === 0) throw invalidArgument("the change leaves no shard");
  return placementOf(from.epoch + 1, shards, config.numSlots);
}

function sameSlots(a: ClusterPlacement, b: ClusterPlacement, id: string): boolean {
  const x = a.placement.slotsOf.get(id);
  const y = b.placement.slotsOf.get(id);
  return x !== undefined && y !== undefined && x.length === y.length && x.every((s, i) => s === y[i]);
}

/** UNAVAILABLE unless every new shard's Redis answers within `timeoutMs`. */
async function reachable(shards: readonly ShardAddress[], timeoutMs: number, login: RedisLogin): Promise<void> {
  await Promise.all(
    shards.map(async (s) => {
      const redis = openRedis(s.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: timeoutMs }, login);
      redis.on("error", () => {});
      try {
        await redis.connect();
        await readyWithin(redis, timeoutMs);
      } catch (err) {
        throw unavailable(`new shard ${s.id}: its Redis ${redact(s.redisUrl)} cannot be reached: ${(err as Error).message}`, err);
      } finally {
        redis.disconnect();
      }
    }),
  );
}

type Progress = {
  shardId: string;
  eventsReplayed: bigint;
  eventsPerSecond: number;
  lag: bigint;
  etaMs: bigint;
  playersSeeded: bigint;
  seededFrom: string[];
};
interface Reports {
  building(p: Progress): void;
  cutOver(ms: number): void;
  deleting(shardId: string, playersLeft: number): void;
}

/**
 * Builds `changed` for `next`, cuts them over together, publishes `next`, waits for the moves in
 * place to delete what they gave away; resolves with ms from the first cut-over to the publication.
 */
async function move(
  d: ReshardDeps,
  from: ClusterPlacement,
  next: ClusterPlacement,
  changed: readonly ShardAddress[],
  ctx: CallContext,
  report: Reports,
): Promise<number> {
  const { config, log } = d;
  const topicId = await d.topicIds.idOf(config.scoreTopic);
  if (!topicId) throw new LadderError(Code.FAILED_PRECONDITION, `score topic ${config.scoreTopic} does not exist`);
  const leases = await takeLeases(changed, config.keyPrefix, config.redisAdminLogin, log);
  // connected before the builds: between the first cut-over and the publication reads are refused
  const publisher = await d.placement.openPublisher().catch(async (err: unknown) => {
    await Promise.all([...leases.values()].map((l) => l.release()));
    throw LadderError.from(err);
  });
  const group = new AbortController();
  const onCancel = () => group.abort(new LadderError(Code.CANCELLED, "the caller cancelled the reshard"));
  ctx.signal.addEventListener("abort", onCancel, { once: true });
  const gate = countdown(changed.length);
  const swapped = countdown(changed.length);
  let firstSwapAt = 0;
  const rebuilds = changed.map((s) => {
    const slots = next.placement.slotsOf.get(s.id)!;
    const stamp = shardStamp({ ...stampConfig(config), shardId: s.id, slots });
    const before = from.placement.slotsOf.get(s.id);
    // a shard that stays moves in place: it replays only the slots it gains and deletes those it loses
    const inPlace = before ? inPlaceMove(config, s.id, before, slots, topicId, stamp) : undefined;
    const gained = slots.filter((x) => !before?.includes(x));
    return rebuildShard({
      logClient: d.logClient,
      topic: config.scoreTopic,
      shardId: s.id,
      redisUrl: s.redisUrl,
      login: config.redisAdminLogin,
      ...(inPlace ?? {
        stamp,
        builtFrom: builtFrom(stamp, topicId),
        slots,
        mode: { kind: "swap", stagingDb: config.rebuildDb, readyLag: config.readyLag } as const,
      }),
      keyPrefix: config.keyPrefix,
      boards: config.boards,
      applyBatch: config.applyBatch,
      dedupWindowMs: config.dedupWindowMs,
      ...(config.snapshots && gained.length
        ? {
            seeds: {
              topic: snapshotTopicOf(config.scoreTopic),
              numSlots: config.numSlots,
              sources: seedSources(config, from, gained, topicId),
            },
          }
        : {}),
      lease: leases.get(s.id)!,
      signal: group.signal,
      onProgress: (p) =>
        report.building({
          shardId: p.shardId,
          eventsReplayed: BigInt(p.replayed),
          eventsPerSecond: p.perSecond,
          lag: BigInt(p.lag),
          etaMs: BigInt(p.etaMs),
          playersSeeded: BigInt(p.seeded?.members ?? 0),
          seededFrom: p.seeded?.snapshots ?? [],
        }),
      beforeSwap: () => (gate.done(), gate.all),
      onSwapped: () => ((firstSwapAt ||= performance.now()), swapped.done()),
      log: log.child({ shardId: s.id, reshard: next.epoch }),
    });
  });
  // the first rebuild to fail stops the others (before the swaps: nothing swaps, nothing is published)
  const failures = rebuilds.map((r) =>
    r.then(
      () => undefined,
      (err: unknown) => (group.abort(err), err),
    ),
  );
  try {
    await Promise.race([
      swapped.all,
      Promise.all(failures).then((errs) => Promise.reject(errs.find((e) => e !== undefined) ?? new Error("no shard swapped"))),
    ]).catch(async (err: unknown) => {
      if (firstSwapAt === 0) throw LadderError.from(err);
    });
    await publisher.publish(next);
    const cutOverMs = performance.now() - firstSwapAt;
    log.info({ epoch: next.epoch, cutOverMs: Math.round(cutOverMs) }, "reshard: new placement published");
    const errs = (await Promise.all(failures)).filter((e) => e !== undefined);
    if (errs.length)
      throw new LadderError(
        Code.ABORTED,
        `placement epoch ${next.epoch} is published, but a shard did not swap in its rebuilt data: ${errs.map((e) => (e as Error).message).join("; ")}; rebuild it (RebuildShards) to serve again`,
      );
    report.cutOver(cutOverMs);
    await drained(
      changed.filter((s) => from.placement.slotsOf.has(s.id)),
      config.keyPrefix,
      config.redisAdminLogin,
      ctx,
      report,
      log,
    );
    return cutOverMs;
  } finally {
    ctx.signal.removeEventListener("abort", onCancel);
    await Promise.allSettled(rebuilds);
    await publisher.close().catch((err: unknown) => log.warn({ err }, "reshard: could not close the placement's producer"));
    await Promise.all([...leases.values()].map((l) => l.release()));
  }
}

/** What a shard's stamp takes from the configuration (identity.ts): all but its id and slots. */
const stampConfig = (config: Pick<Config, "scoreTopic" | "numSlots" | "boards" | "recordCountBuckets">) => ({
  topic: config.scoreTopic,
  numSlots: config.numSlots,
  boards: config.boards,
  recordCountBuckets: config.recordCountBuckets,
});

/** The rebuild options of a shard that stays and moves its slots in place (store/src/writer/move.ts). */
function inPlaceMove(
  config: Config,
  shardId: string,
  before: readonly number[],
  after: readonly number[],
  topicId: string,
  toStamp: string,
) {
  const stamp = shardStamp({ ...stampConfig(config), shardId, slots: before });
  return {
    stamp,
    builtFrom: builtFrom(stamp, topicId),
    slots: after.filter((x) => !before.includes(x)),
    mode: {
      kind: "move",
      readyLag: config.readyLag,
      lost: before.filter((x) => !after.includes(x)),
      numSlots: config.numSlots,
      to: builtFrom(toStamp, topicId),
      toStamp,
    } as const,
  };
}

/**
 * The old owners of `gained` in `from`, each with its built-from value there (the configuration its
 * snapshots are taken under) and the slots it gives: where a build seeds them from (move-seed.ts).
 */
export function seedSources(
  config: Pick<Config, "scoreTopic" | "numSlots" | "boards" | "recordCountBuckets">,
  from: ClusterPlacement,
  gained: readonly number[],
  topicId: string,
): SeedSource[] {
  const out: SeedSource[] = [];
  for (const [shardId, ownerSlots] of from.placement.slotsOf) {
    const slots = gained.filter((x) => ownerSlots.includes(x));
    if (slots.length === 0) continue;
    const stamp = shardStamp({ ...stampConfig(config), shardId, slots: ownerSlots });
    out.push({ shardId, builtFrom: builtFrom(stamp, topicId), ownerSlots, slots });
  }
  return out;
}

/** Waits until the shard nodes of `shards` have deleted the players their moves gave away; reports what is left each second. */
async function drained(
  shards: readonly ShardAddress[],
  keyPrefix: string,
  login: RedisLogin,
  ctx: CallContext,
  report: Reports,
  log: Logger,
): Promise<void> {
  const t0 = performance.now();
  await Promise.all(
    shards.map(async (s) => {
      const redis = openRedis(s.redisUrl, { maxRetriesPerRequest: 2 }, login);
      redis.on("error", () => {});
      try {
        for (;;) {
          ctx.signal.throwIfAborted();
          if (!(await moveOf(redis, keyPrefix))) return;
          report.deleting(s.id, await movePending(redis, keyPrefix));
          await new Promise((r) => setTimeout(r, 1000));
        }
      } finally {
        redis.disconnect();
      }
    }),
  );
  log.info({ shards: shards.map((s) => s.id), ms: Math.round(performance.now() - t0) }, "reshard: the departed players are deleted");
}

/** A promise that resolves once done() was called `n` times. */
function countdown(n: number): { done(): void; all: Promise<void> } {
  let left = n;
  let resolve!: () => void;
  const all = new Promise<void>((r) => (resolve = r));
  if (left === 0) resolve();
  return { done: () => void (--left === 0 && resolve()), all };
}

/** The rebuild lease of every changed shard, or none (ABORTED naming a rebuild that runs). */
async function takeLeases(
  shards: readonly ShardAddress[],
  keyPrefix: string,
  login: RedisLogin,
  log: Logger,
): Promise<Map<string, RebuildLease>> {
  const leases = new Map<string, RebuildLease>();
  try {
    for (const s of shards)
      leases.set(
        s.id,
        await RebuildLease.acquire({
          redisUrl: s.redisUrl,
          login,
          keyPrefix,
          shardId: s.id,
          mode: LEASE_MODE,
          log: log.child({ shardId: s.id }),
        }),
      );
    return leases;
  } catch (err) {
    await Promise.all([...leases.values()].map((l) => l.release()));
    throw err;
  }
}

/** A Redis URL as answers and errors show it: its user and password masked, as GetClusterStatus shows it. */
const redact = redactUrl;
