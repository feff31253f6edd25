/**
 * AdminService.GetClusterStatus: the cluster as this router sees it, for operators (the CLI's
 * `status`). It judges nothing anew:
 *
 *   - a shard's readiness is the outcome of one read of it, made as every read is made
 *     (ShardPool.call over the live store: the read scripts' heartbeat check against this router's
 *     stamp of the shard, the replica choice of replicated-reader.ts, the shard timeout), and its refusal is
 *     that read's error message, word for word what a client's read gets now;
 *   - the rest is looked up: on the shard's primary, in one pipeline, the applied offsets of its
 *     partitions, the heartbeat's remaining TTL, DBSIZE, used_memory and ROLE; a shard's replicas as
 *     the ReplicaSet's last probe found them; Kafka's brokers and the score topic's end offsets
 *     through the router's admin client.
 *
 * Each part is bounded by the shard timeout and a part that does not answer is reported as such
 * (unset fields, reachable = false, Kafka's error), never as the call's error: the status is most
 * wanted when something is down.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { LogClient } from "@ladder/log/log-client";
import type { Config } from "@ladder/platform/config";
import { Code, LadderError, notFound, unavailable } from "@ladder/model/errors";
import type { ImplOf } from "@ladder/platform/grpc-adapter";
import { redactUrl } from "@ladder/platform/logger";
import { keyLayout, type KeyLayout } from "@ladder/store";
import {
  type AdminService,
  type KafkaStatusSchema,
  type RedisNodeStatusSchema,
  type ShardStatusSchema,
  ShardReadiness,
} from "@ladder/proto/leaderboard/v1/admin_pb";
import { Deadlines } from "../read/deadlines.js";
import type { ShardPool } from "../read/shard-pool.js";

export interface StatusDeps {
  config: Config;
  /** The router's shards: reads and their connections. */
  pool: ShardPool;
  /** The router's Kafka admin client (shared with rebuilds and the log ends). */
  logClient: LogClient;
}

type Bounded = <T>(work: Promise<T>, what: string) => Promise<T>;

/** A board key no board can have (names never hold "~"): the readiness read finds nothing, and reads nothing else. */
const PROBE_BOARD = "~status-probe";

export function clusterStatus({ config, pool, logClient }: StatusDeps): Pick<ImplOf<typeof AdminService>, "getClusterStatus"> {
  const keys = keyLayout(config.keyPrefix);
  const deadlines = new Deadlines(20);
  const bounded: Bounded = (work, what) =>
    deadlines.within(work, config.shardTimeoutMs, () => unavailable(`${what}: no answer within ${config.shardTimeoutMs} ms`));
  return {
    async getClusterStatus(req) {
      const { shards: placed, placement } = pool.placement; // the placement this router reads by
      const slotsOf = placement.slotsOf;
      const ids = req.shardIds.length ? [...new Set(req.shardIds)] : placed.map((s) => s.id);
      const shards = ids.map((id) => placed.find((s) => s.id === id) ?? unknownShard(id));
      const [kafka, ...parts] = await Promise.all([
        kafkaStatus(config, logClient, bounded),
        ...shards.map(async (s) => {
          const slots = slotsOf.get(s.id) ?? [];
          const [ready, primary] = await Promise.all([readiness(pool, s.id), primaryFacts(pool, s.id, keys, slots, bounded)]);
          return { shard: s, slots, ready, primary } satisfies ShardParts;
        }),
      ]);
      const ends = kafka.endOffsets.length ? new Map(kafka.endOffsets.map((o) => [o.partition, o.offset])) : undefined;
      return { observedAtMs: BigInt(Date.now()), kafka, shards: parts.map((part) => shardStatus(part, config, pool, ends)) };
    },
  };
}

interface ShardParts {
  shard: Config["shards"][number];
  slots: readonly number[];
  ready: { readiness: ShardReadiness; refusal: string };
  primary: PrimaryFacts | undefined;
}

/** One shard's report from what was found; `ends`: the log's end offsets, when Kafka answered. */
function shardStatus(
  { shard, slots, ready, primary }: ShardParts,
  config: Config,
  pool: ShardPool,
  ends: ReadonlyMap<number, bigint> | undefined,
): MessageInitShape<typeof ShardStatusSchema> {
  return {
    shardId: shard.id,
    redis: redactUrl(shard.redisUrl),
    ...ready,
    partitions: slots.length,
    heartbeatTtlMs: BigInt(config.heartbeatTtlMs),
    ...(primary && {
      lagRecords: ends ? lagOf(slots, ends, primary.applied) : undefined,
      // the node sets the key with the full TTL at every beat: what has run off since is its age
      heartbeatAgeMs: primary.heartbeatTtlLeftMs >= 0 ? BigInt(Math.max(0, config.heartbeatTtlMs - primary.heartbeatTtlLeftMs)) : undefined,
      keys: BigInt(primary.keys),
      usedMemoryBytes: BigInt(primary.usedMemory),
    }),
    nodes: nodesOf(pool, shard.id, shard.redisUrl, primary),
  };
}

/** Whether a read of the shard is answered now: one read, made as every read is. */
async function readiness(pool: ShardPool, shardId: string): Promise<{ readiness: ShardReadiness; refusal: string }> {
  const store = pool.scope().stores.find((s) => s.shardId === shardId)!;
  try {
    await pool.call(store, (s) => s.entry(PROBE_BOARD, ""));
    return { readiness: ShardReadiness.SERVING, refusal: "" };
  } catch (err) {
    const e = LadderError.from(err);
    return {
      readiness: e.code === Code.FAILED_PRECONDITION ? ShardReadiness.MISCONFIGURED : ShardReadiness.UNAVAILABLE,
      refusal: e.message,
    };
  }
}

interface PrimaryFacts {
  /** Per partition of the shard, the offset applied (-1: none). */
  applied: bigint[];
  /** PTTL of the heartbeat key: -2 when it does not exist. */
  heartbeatTtlLeftMs: number;
  keys: number;
  usedMemory: number;
  /** ROLE's first two fields. */
  role: string;
  offset: number;
}

/** What the shard's primary holds, in one pipeline; undefined when it does not answer in time. */
async function primaryFacts(
  pool: ShardPool,
  shardId: string,
  keys: KeyLayout,
  slots: readonly number[],
  bounded: Bounded,
): Promise<PrimaryFacts | undefined> {
  const redis = pool.nodesOf(shardId)!.primary;
  try {
    const p = redis.pipeline().pttl(keys.heartbeat).dbsize().info("memory").call("ROLE");
    if (slots.length) p.hmget(keys.offsets, ...slots.map(String));
    const replies = (await bounded(p.exec(), shardId)) ?? [];
    const failed = replies.find(([err]) => err);
    if (failed || replies.length === 0) throw failed?.[0] ?? new Error("the pipeline was not run");
    const [ttl, dbsize, info, role, applied] = replies.map(([, value]) => value) as [
      number,
      number,
      string,
      Array<string | number>,
      Array<string | null> | undefined,
    ];
    return {
      applied: (applied ?? []).map((o) => (o === null ? -1n : BigInt(o))),
      heartbeatTtlLeftMs: Number(ttl),
      keys: Number(dbsize),
      usedMemory: Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0),
      role: String(role[0] ?? ""),
      offset: Number(role[0] === "master" ? role[1] : role[4]) || 0,
    };
  } catch {
    return undefined; // reported as unreachable: unset fields
  }
}

/** Records the shard has not applied: per partition, end - 1 - applied, summed. */
function lagOf(slots: readonly number[], ends: ReadonlyMap<number, bigint>, applied: readonly bigint[]): bigint {
  let lag = 0n;
  slots.forEach((p, i) => {
    const behind = (ends.get(p) ?? 0n) - 1n - (applied[i] ?? -1n);
    if (behind > 0n) lag += behind;
  });
  return lag;
}

/** The shard's Redis nodes: the replica set's last probe, or its one server as the pipeline found it. */
function nodesOf(
  pool: ShardPool,
  shardId: string,
  redisUrl: string,
  primary: PrimaryFacts | undefined,
): Array<MessageInitShape<typeof RedisNodeStatusSchema>> {
  const set = pool.nodesOf(shardId)!.replicas;
  if (set)
    return set.nodeStates().map((n) => ({
      address: n.address,
      role: n.role,
      reachable: n.reachable,
      replicationOffset: BigInt(n.offset),
      servesReads: n.servesReads,
    }));
  const address = redactUrl(redisUrl)
    .replace(/^[a-z]+:\/\/(\*\*\*@)?/, "")
    .replace(/\/.*$/, "");
  return [
    {
      address,
      role: primary?.role ?? "",
      reachable: primary !== undefined,
      replicationOffset: BigInt(primary?.offset ?? 0),
      servesReads: primary !== undefined,
    },
  ];
}

/** Kafka's brokers, and the score topic's end offsets; why not, when a broker or the topic does not answer. */
async function kafkaStatus(
  config: Config,
  logClient: LogClient,
  bounded: Bounded,
): Promise<MessageInitShape<typeof KafkaStatusSchema> & { endOffsets: Array<{ partition: number; offset: bigint }> }> {
  const base = {
    bootstrap: [...config.kafkaBrokers],
    scoreTopic: config.scoreTopic,
    reachable: false,
    error: "",
    brokers: [] as string[],
    endOffsets: [],
  };
  const ask = <T>(work: () => Promise<T>, what: string): Promise<T> => {
    const asked = (async () => {
      await logClient.connect(); // a no-op once connected
      return work();
    })();
    asked.catch(() => {}); // a failure after the bound is already reported
    return bounded(asked, what);
  };
  try {
    const brokers = await ask(() => logClient.brokers(), "Kafka");
    try {
      const offsets = await ask(() => logClient.endOffsetsOnce(config.scoreTopic), `score topic ${config.scoreTopic}`);
      return {
        ...base,
        reachable: true,
        brokers,
        endOffsets: [...offsets].map(([partition, offset]) => ({ partition, offset })).sort((a, b) => a.partition - b.partition),
      };
    } catch (err) {
      return { ...base, reachable: true, brokers, error: `score topic ${config.scoreTopic}: ${(err as Error).message}` };
    }
  } catch (err) {
    return { ...base, error: (err as Error).message };
  }
}

function unknownShard(id: string): never {
  throw notFound(`no shard "${id}"`);
}
