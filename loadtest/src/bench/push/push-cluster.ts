/**
 * The push bench's cluster and what it reads of it: the batch bench's kind of cluster
 * (infra/ingest-cluster.ts: the run's Kafka, 3 redis-servers, 3 shard nodes, ingest, router, with
 * their CPU probes), its services' output lines read for the router's change feed resets, the
 * router's live heap (below), and each shard's change stream (XINFO STREAM: entries the apply
 * script added) and change flag.
 *
 * The router logs "change feed reset" (change-feed.ts) at info; the services' lines reach the
 * bench's logger at debug (deploy's spawn-service), so the cluster is started with a logger of its
 * own that counts those lines and passes errors on like the run's logger.
 *
 * LIVE MEMORY. A Node process's heap in use counts garbage not collected yet (V8 collects lazily:
 * hundreds of MiB after a burst of messages), so the services are started with gc-probe.mjs
 * preloaded (and --expose-gc): SIGUSR2 makes one collect all its garbage and print its heap in
 * use then, what it holds live. The bench asks the router at rest only, never in a window.
 */
import { fileURLToPath } from "node:url";
import { rootLogger } from "@ladder/platform/logger";
import { keyLayout } from "@ladder/store";
import type { BenchContext } from "../context.js";
import { BENCH_KEY_PREFIX } from "../infra/bench-board.js";
import { startIngestCluster, type IngestCluster } from "../infra/ingest-cluster.js";

export interface PushCluster {
  cluster: IngestCluster;
  /** "change feed reset" lines the router printed so far, and the last few of them. */
  feedResets(): number;
  resetLines: string[];
  /** The router's heap in use right after a full garbage collection (gc-probe.mjs), MiB. */
  routerLive(): Promise<{ heapMiB: number; gcMs: number }>;
  /** Entries the shards' apply scripts added to their change streams so far, summed. */
  changesAdded(): Promise<number>;
  /** Shards whose change flag is set (a router with watchers keeps it alive). */
  flagsSet(): Promise<number>;
}

const KEYS = keyLayout(BENCH_KEY_PREFIX);
const GC_PROBE = fileURLToPath(new URL("./gc-probe.mjs", import.meta.url));
const PROBE_MSG = "bench gc probe";

export async function startPushCluster(ctx: BenchContext): Promise<PushCluster> {
  let resets = 0;
  const resetLines: string[] = [];
  const probeWaiters: Array<(line: Record<string, unknown>) => void> = [];
  const log = rootLogger({
    level: "debug",
    name: "bench",
    destination: {
      write(s: string) {
        if (s.includes("change feed reset")) {
          resets++;
          resetLines.push(s.trim());
          if (resetLines.length > 20) resetLines.shift();
        }
        if (s.includes(PROBE_MSG) && s.includes('"service":"router"')) {
          const inner = JSON.parse(String((JSON.parse(s) as { line: string }).line)) as Record<string, unknown>;
          probeWaiters.shift()?.(inner);
        }
        if (/"level":(5|6)\d/.test(s)) process.stdout.write(s); // the run's logger prints errors only
      },
    },
  });
  const nodeOptions = [process.env.NODE_OPTIONS, "--expose-gc", `--import ${JSON.stringify(GC_PROBE)}`].filter(Boolean).join(" ");
  const cluster = await startIngestCluster({ ...ctx, log }, { shards: 3, writeConnections: 4, nodeOptions });
  const s = cluster.services;
  return {
    cluster,
    resetLines,
    feedResets: () => resets,
    async routerLive() {
      const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the router did not answer the GC probe within 30 s")), 30_000);
        probeWaiters.push((l) => (clearTimeout(timer), resolve(l)));
        process.kill(s.router().pid!, "SIGUSR2");
      });
      if (line.gc !== true) throw new Error("the router was started without --expose-gc: no GC probe");
      const mib = (x: unknown) => Math.round((Number(x) / 2 ** 20) * 10) / 10;
      return { heapMiB: mib(line.heapUsed), gcMs: Math.round(Number(line.gcMs)) };
    },
    async changesAdded() {
      const added = await Promise.all(
        cluster.redis.map(async (r) => {
          const info = (await r.call("XINFO", "STREAM", KEYS.changes).catch(() => undefined)) as unknown[] | undefined;
          return info ? Number(info[info.indexOf("entries-added") + 1] ?? 0) : 0;
        }),
      );
      return added.reduce((a, b) => a + b, 0);
    },
    async flagsSet() {
      return (await Promise.all(cluster.redis.map((r) => r.exists(KEYS.changesOn)))).reduce((a, b) => a + b, 0);
    },
  };
}
