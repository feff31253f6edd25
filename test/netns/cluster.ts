// The cluster of the partition harness: Kafka, three Redis servers, three shard nodes, the router and
// ingest, each on a host of its own (topology.ts), every link between them through a link proxy of its
// own on the harness (link-proxy.ts), so that one link can be cut, delayed or stalled while the others
// work. The parts run plaintext and unauthenticated, as the other integration tests' do.
//
//   link                 proxy address (harness)   the client host's /etc/hosts
//   router  -> redis-i   10.231.7.(100+i):6400     redis-i.pt
//   shard-i -> redis-i   10.231.7.(110+i):6400     redis-i.pt
//   shard-i -> kafka     10.231.7.(120+i):9092     kafka.pt
//   ingest  -> kafka     10.231.7.130:9092         kafka.pt
//   router  -> kafka     10.231.7.131:9092         kafka.pt
//
// Shard 2 is replicated instead: its primary on host redis2, a replica on redis2r, and three Sentinels
// (sent0..sent2, quorum 2) that watch it; the services address it as sentinel://ladder-pt-2 with
// LADDER_SENTINELS, so they follow what the Sentinels name, directly (its faults are hosts unplugged).
//
// The placement names redis://redis-i.pt:6400, so each host reaches shard i's Redis through its own
// link. Kafka advertises kafka.pt:9092, so a client's every connection after the bootstrap takes its
// link too; a second listener (10.231.7.10:9093) is the harness's own, for the broker's readiness.
// A host's names not listed reach the server host directly. The harness reaches the router and ingest
// directly (its checkers stand for players and game servers, not for a link under test).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { Logger } from "@ladder/platform/logger";
import { builtEntry } from "@ladder/deploy/built-entry";
import { sentinelConf } from "@ladder/deploy/sentinel";
import type { ManagedProcess } from "@ladder/deploy/managed-process";
import { keyLayout, openRedis, parseCurrent } from "@ladder/store";
import { buildTopology, SUBNET, type HostSpec, type Topology } from "./topology.js";
import { linkProxy, type LinkProxy } from "./link-proxy.js";
import { KAFKA_PORT, readyLine, startKafka, startUntil } from "./host-process.js";

export const SHARDS = 3;
/** Shards 0 and 1: one Redis each, reached through link proxies. Shard 2: replicated, behind Sentinel. */
const PLAIN = 2;
export const SENTINEL_SHARD = 2;
export const SENTINEL_NAME = "ladder-pt-2";
const SENTINEL_PORT = 26400;
const SENTINELS = 3;
const REDIS_PORT = 6400;
export const ROUTER_PORT = 50051;
export const INGEST_PORT = 50052;

const at = (octet: number) => `${SUBNET}.${octet}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
export const linkNames = {
  routerRedis: (i: number) => `router->redis-${i}`,
  shardRedis: (i: number) => `shard-${i}->redis-${i}`,
  shardKafka: (i: number) => `shard-${i}->kafka`,
  ingestKafka: "ingest->kafka",
  routerKafka: "router->kafka",
};

interface LinkPlan {
  name: string;
  octet: number;
  target: string;
  port: number;
}

function linkPlan(): LinkPlan[] {
  const redis = (i: number) => `${at(20 + i)}:${REDIS_PORT}`;
  const kafka = `${at(10)}:${KAFKA_PORT}`;
  return [
    ...range(PLAIN).map((i) => ({ name: linkNames.routerRedis(i), octet: 100 + i, target: redis(i), port: REDIS_PORT })),
    ...range(PLAIN).map((i) => ({ name: linkNames.shardRedis(i), octet: 110 + i, target: redis(i), port: REDIS_PORT })),
    ...range(SHARDS).map((i) => ({ name: linkNames.shardKafka(i), octet: 120 + i, target: kafka, port: KAFKA_PORT })),
    { name: linkNames.ingestKafka, octet: 130, target: kafka, port: KAFKA_PORT },
    { name: linkNames.routerKafka, octet: 131, target: kafka, port: KAFKA_PORT },
  ];
}

function hostPlan(): HostSpec[] {
  const direct: Record<string, string> = { "kafka.pt": at(10) };
  for (const i of range(PLAIN)) direct[`redis-${i}.pt`] = at(20 + i);
  const own = (i: number, octet: number) => (i < PLAIN ? { [`redis-${i}.pt`]: at(octet + i) } : {});
  return [
    { name: "kafka", octet: 10, hosts: direct },
    ...range(SHARDS).map((i) => ({ name: `redis${i}`, octet: 20 + i })),
    { name: `redis${SENTINEL_SHARD}r`, octet: 25 },
    ...range(SENTINELS).map((k) => ({ name: `sent${k}`, octet: 50 + k })),
    ...range(SHARDS).map((i) => ({
      name: `shard${i}`,
      octet: 30 + i,
      hosts: { ...direct, ...own(i, 110), "kafka.pt": at(120 + i) },
    })),
    {
      name: "router",
      octet: 40,
      hosts: { ...direct, ...Object.assign({}, ...range(SHARDS).map((i) => own(i, 100))), "kafka.pt": at(131) },
    },
    { name: "ingest", octet: 41, hosts: { ...direct, "kafka.pt": at(130) } },
  ];
}

export interface NetCluster {
  topology: Topology;
  links: Map<string, LinkProxy>;
  link(name: string): LinkProxy;
  routerAddress: string;
  ingestAddress: string;
  /** The harness's own view of shard i's Redis (direct, not through a link): redis://, or sentinel:// for shard 2. */
  redisUrl(i: number): string;
  /** LADDER_SENTINELS: the Sentinels' addresses. */
  sentinels: string;
  /** The primary of shard 2 as each Sentinel names it (host:port), asked directly. */
  sentinelPrimaries(): Promise<string[]>;
  /** Each of shard 2's servers' role and replication offset (INFO replication), asked directly. */
  replication(): Promise<string>;
  /** Where shard 2's Redis run: its first primary and its replica (host:port). */
  sentinelServers: { primary: string; replica: string; hostOf(address: string): string };
  process(name: string): ManagedProcess;
  /** Every partition's applied offset, from each shard's Redis read directly (shard 2's primary through Sentinel). */
  applied(): Promise<Map<number, bigint>>;
  /**
   * The oldest of the shards' "current as of" (ms, the Redis's clock: the same host's): when each
   * last knew itself to hold the log's end, as its heartbeat wrote it; -1 when a shard has none (not serving).
   */
  currentAsOf(): Promise<number>;
  stop(): Promise<void>;
}

export interface NetClusterOptions {
  dataDir: string;
  kafkaLibs: string;
  /** LADDER_* settings of every service. */
  settings: Record<string, string>;
  log: Logger;
}

const sentinelList = range(SENTINELS)
  .map((k) => `${at(50 + k)}:${SENTINEL_PORT}`)
  .join(",");

export async function startNetCluster(o: NetClusterOptions): Promise<NetCluster> {
  const topology = await buildTopology(hostPlan());
  const procs = new Map<string, ManagedProcess>();
  const links = new Map<string, LinkProxy>();
  const keyPrefix = o.settings.LADDER_KEY_PREFIX ?? "";
  let direct: Redis[] | undefined;
  // the harness's own connections to each shard's Redis (shard 2's primary through Sentinel), opened once
  const shardRedis = (): Redis[] =>
    (direct ??= range(SHARDS).map((i) => {
      const r = openRedis(i < PLAIN ? `redis://${at(20 + i)}:${REDIS_PORT}` : `sentinel://${sentinelList}/${SENTINEL_NAME}`, {
        maxRetriesPerRequest: 1,
      });
      r.on("error", () => {});
      return r;
    }));
  const stop = async () => {
    direct?.forEach((r) => r.disconnect());
    const groups = [
      ["ingest", "router"],
      range(SHARDS).map((i) => `shard-${i}`),
      range(SENTINELS).map((k) => `sentinel-${k}`),
      [...range(SHARDS).map((i) => `redis-${i}`), `redis-${SENTINEL_SHARD}r`, "kafka"],
    ];
    for (const group of groups) await Promise.all(group.map((n) => procs.get(n)?.stop(10_000)));
    await Promise.all([...links.values()].map((l) => l.close()));
    await topology.destroy();
  };
  try {
    for (const l of linkPlan()) {
      const listen = await topology.addHarnessAddress(l.octet);
      links.set(l.name, await linkProxy(l.name, listen, l.target, l.port));
    }
    const inNs = (host: string, command: string, args: string[]) => ({
      command: "ip",
      args: ["netns", "exec", topology.netns(host), command, ...args],
    });
    const startRedis = async (name: string, host: string, octet: number, replicaOf?: string) => {
      const dir = join(o.dataDir, name);
      await mkdir(dir, { recursive: true });
      const args = ["--port", String(REDIS_PORT), "--bind", at(octet), "--protected-mode", "no", "--dir", dir, "--save", ""];
      args.push(
        "--appendonly",
        "no",
        "--repl-diskless-sync-delay",
        "0",
        ...(replicaOf ? ["--replicaof", replicaOf, String(REDIS_PORT)] : []),
      );
      await start(name, host, { command: "redis-server", args }, (l) => l.includes("Ready to accept connections"));
    };
    const start = async (
      name: string,
      host: string,
      cmd: { command: string; args: string[] },
      ready: (line: string) => boolean,
      env?: Record<string, string>,
    ) => {
      const p = await startUntil(name, { ...inNs(host, cmd.command, cmd.args), env, log: o.log.child({ proc: name }) }, ready);
      procs.set(name, p);
    };
    await Promise.all([
      startKafka(o, topology.address("kafka"), (cmd, ready) => start("kafka", "kafka", cmd, ready)),
      ...range(SHARDS).map((i) => startRedis(`redis-${i}`, `redis${i}`, 20 + i)),
    ]);
    await startRedis(`redis-${SENTINEL_SHARD}r`, `redis${SENTINEL_SHARD}r`, 25, at(20 + SENTINEL_SHARD));
    await Promise.all(
      range(SENTINELS).map(async (k) => {
        const dir = join(o.dataDir, `sentinel-${k}`);
        await mkdir(dir, { recursive: true });
        const conf = sentinelConf({
          port: SENTINEL_PORT,
          dataDir: dir,
          primaries: [{ name: SENTINEL_NAME, address: `${at(20 + SENTINEL_SHARD)}:${REDIS_PORT}` }],
          quorum: 2,
          downAfterMs: 1000,
          failoverTimeoutMs: 5000,
        }).replace("bind 127.0.0.1", `bind ${at(50 + k)}`);
        await writeFile(join(dir, "sentinel.conf"), conf);
        const cmd = { command: "redis-server", args: [join(dir, "sentinel.conf"), "--sentinel"] };
        await start(`sentinel-${k}`, `sent${k}`, cmd, (l) => l.includes("+monitor master"));
      }),
    );
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      LADDER_KAFKA_BROKERS: `kafka.pt:${KAFKA_PORT}`,
      LADDER_SHARDS: range(SHARDS)
        .map((i) => (i < PLAIN ? `shard-${i}=redis://redis-${i}.pt:${REDIS_PORT}` : `shard-${i}=sentinel://${SENTINEL_NAME}`))
        .join(","),
      LADDER_SENTINELS: sentinelList,
      LADDER_ROUTER_METRICS_LISTEN: "127.0.0.1:0",
      LADDER_INGEST_METRICS_LISTEN: "127.0.0.1:0",
      LADDER_SHARD_METRICS_LISTEN: "127.0.0.1:0",
      LADDER_IMPLICIT_BOARDS: "1",
      LADDER_LOG_LEVEL: "info",
      ...o.settings,
    };
    const service = (entry: string) => ({ command: process.execPath, args: [builtEntry(entry)] });
    await Promise.all(
      range(SHARDS).map((i) =>
        start(`shard-${i}`, `shard${i}`, service("shard-node/src/main.ts"), readyLine("shard node ready"), {
          ...env,
          LADDER_SHARD_ID: `shard-${i}`,
        }),
      ),
    );
    await start("router", "router", service("router/src/main.ts"), readyLine("router listening"), {
      ...env,
      LADDER_ROUTER_LISTEN: `${at(40)}:${ROUTER_PORT}`,
    });
    await start("ingest", "ingest", service("ingest/src/main.ts"), readyLine("ingest listening"), {
      ...env,
      LADDER_INGEST_LISTEN: `${at(41)}:${INGEST_PORT}`,
    });
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  return {
    topology,
    links,
    link(name) {
      const l = links.get(name);
      if (!l) throw new Error(`no link "${name}": one of ${[...links.keys()].join(", ")}`);
      return l;
    },
    routerAddress: `${at(40)}:${ROUTER_PORT}`,
    ingestAddress: `${at(41)}:${INGEST_PORT}`,
    redisUrl: (i) => (i < PLAIN ? `redis://${at(20 + i)}:${REDIS_PORT}` : `sentinel://${sentinelList}/${SENTINEL_NAME}`),
    sentinels: sentinelList,
    sentinelServers: {
      primary: `${at(20 + SENTINEL_SHARD)}:${REDIS_PORT}`,
      replica: `${at(25)}:${REDIS_PORT}`,
      hostOf: (a) => (a === `${at(25)}:${REDIS_PORT}` ? `redis${SENTINEL_SHARD}r` : `redis${SENTINEL_SHARD}`),
    },
    sentinelPrimaries: () =>
      Promise.all(
        range(SENTINELS).map(async (k) => {
          const r = new Redis({ host: at(50 + k), port: SENTINEL_PORT, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 });
          r.on("error", () => {});
          try {
            await r.connect();
            const [h, p] = (await r.call("SENTINEL", "get-master-addr-by-name", SENTINEL_NAME)) as [string, string];
            return `${h}:${p}`;
          } catch (err) {
            return `unanswered (${(err as Error).message})`;
          } finally {
            r.disconnect();
          }
        }),
      ),
    replication: () =>
      Promise.all(
        [at(20 + SENTINEL_SHARD), at(25)].map(async (host) => {
          const r = new Redis({ host, port: REDIS_PORT, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 });
          r.on("error", () => {});
          try {
            await r.connect();
            const info = await r.info("replication");
            const field = (k: string) => new RegExp(`^${k}:(.*)$`, "m").exec(info)?.[1]?.trim();
            return `${host}: ${field("role")} offset ${field("master_repl_offset")}${field("master_link_status") ? ` link ${field("master_link_status")}` : ""}`;
          } catch (err) {
            return `${host}: unanswered (${(err as Error).message})`;
          } finally {
            r.disconnect();
          }
        }),
      ).then((lines) => lines.join("; ")),
    async applied() {
      const out = new Map<number, bigint>();
      for (const r of shardRedis())
        for (const [p, off] of Object.entries(await r.hgetall(keyLayout(keyPrefix).offsets))) out.set(Number(p), BigInt(off));
      return out;
    },
    async currentAsOf() {
      const values = await Promise.all(shardRedis().map((r) => r.get(keyLayout(keyPrefix).current)));
      return Math.min(...values.map((v) => parseCurrent(v)?.asOfMs ?? -1));
    },
    process(name) {
      const p = procs.get(name);
      if (!p) throw new Error(`no process "${name}"`);
      return p;
    },
    stop,
  };
}
