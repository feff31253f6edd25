/**
 * Several router processes behind one address (LADDER_ROUTER_PROCESSES > 1).
 *
 * A router is stateless apart from caches (the top cache, the log ends, replica freshness),
 * and one Node process answers on one core, so a machine with more cores than the router's
 * share runs several. They share the listen address through Node's cluster module: this
 * supervising process forks the routers, and on Linux it accepts each incoming connection
 * and hands it to the next router in turn (cluster's round-robin scheduling). A gRPC
 * connection stays with the router that got it: clients that open several connections (or
 * reconnect) spread over the routers; one connection uses one router. SO_REUSEPORT would
 * let the kernel do the accepting: Node 24's `net` can set it (`reusePort`), but grpc-js 1.14
 * binds its HTTP/2 server without it and has no option for it.
 *
 * Each router is exactly the single-process router (../router.ts), so every read answers the
 * same whichever router takes it; what each keeps in memory is its own (its top cache may be
 * a little older or newer than another's, within the same stated bound; a watch stream lives
 * on the router that took it).
 *
 * THE CONTROL PLANE RUNS IN EVERY ROUTER, as it does in every router of a deployment with
 * several: nothing in it assumes it is alone. The closer (closer.ts) writes close markers that
 * a shard applies once whoever sends them, and each close event in a Kafka transaction that
 * fences every other closer; rebuilds and moves (admin-service.ts, reshard.ts) run in the
 * router that took the call and hold the shard's rebuild lease, so a second one is refused;
 * board definitions, moderation and deletions are records in the log. The followers (placement,
 * board definitions, closes) are read-only. The price of N processes is N times the followers'
 * and the closer's idle reads, a few per second each.
 *
 * The supervisor:
 *   - is ready (logs "router listening" with the port and metrics port) once every router
 *     listens; a router that exits before that fails the start (the configuration is wrong,
 *     say, and would be as wrong for a restart);
 *   - afterwards restarts a router that dies, after a pause that doubles from 1 s to 30 s
 *     while restarts keep failing within a minute; the others keep serving meanwhile;
 *   - serves the metrics of the routers that listen, summed, at LADDER_ROUTER_METRICS_LISTEN (each
 *     sends its registry over the cluster's IPC channel when asked: platform/src/metrics.ts);
 *   - on SIGTERM/SIGINT asks every router to stop (each drains as a lone router does) and
 *     exits once they have. A router whose supervisor dies exits too (cluster workers do when
 *     their IPC channel closes).
 */
import cluster, { type Worker } from "node:cluster";
import type { Config } from "@ladder/platform/config";
import type { Logger } from "@ladder/platform/logger";
import { startClusterMetricsServer } from "@ladder/platform/metrics";
import { onShutdown } from "@ladder/platform/shutdown";

const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/** A router that lived this long resets the restart pause. */
const HEALTHY_MS = 60_000;

interface Listening {
  ladder: "listening";
  port: number;
}
const isListening = (m: unknown): m is Listening => typeof m === "object" && m !== null && (m as Listening).ladder === "listening";

/** `env`: set in every router's environment on top of this process's (the stream secret they share). */
export async function superviseRouters(config: Config, log: Logger, env: Readonly<Record<string, string>> = {}): Promise<void> {
  const count = config.routerProcesses;
  const serving = new Set<Worker>();
  const metrics = await startClusterMetricsServer({ listen: config.routerMetricsListen, log, workers: () => [...serving] });
  let stopping = false;
  let ready = false;
  let pauseMs = RESTART_MIN_MS;
  const started = new Map<Worker, number>();

  const fork = (slot: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork(env);
      started.set(worker, Date.now());
      worker.on("message", (m: unknown) => {
        if (!isListening(m)) return;
        serving.add(worker);
        resolve(m.port);
      });
      worker.once("exit", (code, signal) => {
        const livedMs = Date.now() - (started.get(worker) ?? Date.now());
        started.delete(worker);
        serving.delete(worker);
        reject(new Error(`router process ${slot} exited (${signal ?? `code ${code}`}) before listening`));
        if (stopping || !ready) return;
        pauseMs = livedMs >= HEALTHY_MS ? RESTART_MIN_MS : Math.min(RESTART_MAX_MS, pauseMs * 2);
        log.warn({ slot, pid: worker.process.pid, code, signal, livedMs, restartInMs: pauseMs }, "a router process died; restarting it");
        setTimeout(() => {
          if (stopping) return;
          fork(slot).then(
            (port) => log.info({ slot, port }, "router process restarted"),
            (err: unknown) => log.warn({ err, slot }, "a restarted router process did not come up"),
          );
        }, pauseMs).unref();
      });
    });

  onShutdown(
    log,
    async () => {
      stopping = true;
      const exits = [...started.keys()].map(
        (w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once("exit", () => resolve()))),
      );
      for (const w of started.keys()) w.process.kill("SIGTERM");
      await Promise.all(exits);
      await metrics.close();
    },
    15_000,
  );

  let ports: number[];
  try {
    ports = await Promise.all(Array.from({ length: count }, (_, slot) => fork(slot)));
  } catch (err) {
    stopping = true;
    for (const w of started.keys()) w.process.kill("SIGTERM");
    await metrics.close();
    log.error({ err }, "the router processes did not all start");
    process.exit(1);
  }
  ready = true;
  log.info(
    { address: config.routerListen, port: ports[0], metricsPort: metrics.port, shards: config.shards.length, processes: count },
    "router listening",
  );
}
