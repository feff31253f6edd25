/**
 * Prometheus metrics (prom-client): one registry per process, served over HTTP.
 *
 * Each process has one registry (`processRegistry`); each part of the code declares its
 * metrics as a metric set (`metricSet`): a function that creates them on a registry the
 * first time it is asked for that registry and returns the same objects after, so a module
 * can ask for its metrics wherever it needs them without registering a name twice, and a
 * test can make them on a registry of its own. The sets are:
 *
 *   grpcServerMetrics        platform/src/grpc-adapter.ts   every rpc of every server
 *   ingestMetrics            ingest/src/metrics.ts        the group-commit producer
 *   shardNodeMetrics         shard-node/src/metrics.ts    readiness, lag, the applier
 *   routerMetrics            router/src/metrics.ts        shard calls, token waits, rebuilds
 *
 * `startMetricsServer` adds Node's default metrics (process_*, nodejs_*) to the registry and
 * serves the text format at GET /metrics on the service's metrics address
 * (LADDER_ROUTER_METRICS_LISTEN, LADDER_INGEST_METRICS_LISTEN, LADDER_SHARD_METRICS_LISTEN).
 * deploy/grafana/ladder.json is the dashboard of these series; a unit test checks that every
 * series it queries is one the code registers.
 *
 * The services depend on prom-client through this module only (its classes are re-exported).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Logger } from "./logger.js";

export { Counter, Gauge, Histogram, Registry };

/** The registry of this process: what its /metrics serves. */
export const processRegistry = new Registry();

/**
 * A set of metrics, made on a registry the first time it is asked for (the process's
 * registry by default), the same objects every later time.
 */
export function metricSet<T>(make: (registry: Registry) => T): (registry?: Registry) => T {
  const made = new WeakMap<Registry, T>();
  return (registry = processRegistry) => {
    let set = made.get(registry);
    if (set === undefined) made.set(registry, (set = make(registry)));
    return set;
  };
}

/**
 * Memoizes `bind(...labelValues)` (a metric's `labels(...)`): prom-client hashes the label
 * values on every lookup, which per call on a hot path (every rpc, every shard call) is
 * worth avoiding. For label sets of bounded size only (shards, methods, status codes).
 */
export function bound<C>(bind: (...values: string[]) => C): (...values: string[]) => C {
  const cache = new Map<string, C>();
  return (...values) => {
    const key = values.join("\u0000");
    let child = cache.get(key);
    if (child === undefined) cache.set(key, (child = bind(...values)));
    return child;
  };
}

/** Seconds since `startedAt` (a performance.now() reading). */
export const secondsSince = (startedAt: number): number => (performance.now() - startedAt) / 1000;

/** Latency buckets (seconds) for calls that take from a fraction of a millisecond to seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A histogram for the hottest paths (every rpc, every shard read), served in prom-client's text
 * and JSON formats. prom-client's own checks the label values, hashes them and looks them up on
 * every observe, even through a child from labels(): a visible share of the router's time per
 * rank (four observes per GetRank on three shards). Here labels() binds a child once per label
 * values (memoized), and a child's observe is a scan of the bucket bounds and three additions.
 * Registered on each registry as a metric of its own (prom-client calls get() and reset()).
 */
export class HotHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  private readonly bounds: readonly number[];
  private readonly children: HotHistogramChild[] = [];
  /** The child of these label values (in labelNames' order), made once (bound). */
  readonly labels: (...values: string[]) => HotHistogramChild;

  constructor(o: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: Registry[] }) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames;
    this.bounds = [...o.buckets].sort((a, b) => a - b);
    this.labels = bound((...values) => kept(this.children, new HotHistogramChild(this.bounds, labelSetOf(this, values))));
    for (const r of o.registers) r.registerMetric(this as never);
  }

  /** What prom-client's Histogram.get() returns for the same observations. */
  async get(): Promise<{
    name: string;
    help: string;
    type: "histogram";
    aggregator: "sum";
    values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }>;
  }> {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const c of this.children) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += c.counts[i]!;
        values.push({ labels: { le: this.bounds[i]!, ...c.labelSet }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: "+Inf", ...c.labelSet }, value: c.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...c.labelSet }, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...c.labelSet }, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const c of this.children) c.reset();
  }
}

export class HotHistogramChild {
  /** Observations per bucket (not cumulative); one past the last bound: above it. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    private readonly bounds: readonly number[],
    readonly labelSet: Readonly<Record<string, string>>,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** A counter for the hottest paths, as HotHistogram is a histogram: children bound once, inc() an addition. */
export class HotCounter {
  readonly type = "counter";
  readonly aggregator = "sum";
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  private readonly children: HotCounterChild[] = [];
  /** The child of these label values (in labelNames' order), made once (bound). */
  readonly labels: (...values: string[]) => HotCounterChild;

  constructor(o: { name: string; help: string; labelNames: readonly string[]; registers: Registry[] }) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames;
    this.labels = bound((...values) => kept(this.children, new HotCounterChild(labelSetOf(this, values))));
    for (const r of o.registers) r.registerMetric(this as never);
  }

  async get(): Promise<{
    name: string;
    help: string;
    type: "counter";
    aggregator: "sum";
    values: Array<{ labels: Record<string, string>; value: number }>;
  }> {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.children.map((c) => ({ labels: { ...c.labelSet }, value: c.value })),
    };
  }

  reset(): void {
    for (const c of this.children) c.value = 0;
  }
}

/** The label set of `values` (in the metric's labelNames' order); throws when their number differs. */
function labelSetOf(metric: { name: string; labelNames: readonly string[] }, values: readonly string[]): Record<string, string> {
  if (values.length !== metric.labelNames.length)
    throw new Error(`${metric.name}: ${values.length} label values for ${metric.labelNames.length} labels`);
  return Object.fromEntries(metric.labelNames.map((n, i) => [n, values[i]!]));
}

/** `child`, after adding it to `children`. */
function kept<C>(children: C[], child: C): C {
  children.push(child);
  return child;
}

export class HotCounterChild {
  value = 0;
  constructor(readonly labelSet: Readonly<Record<string, string>>) {}
  inc(by = 1): void {
    this.value += by;
  }
}

const withDefaults = new WeakSet<Registry>();

/**
 * How often the event-loop delay is sampled (ms): prom-client's default of 10 ms is a libuv timer
 * that wakes every process 100 times a second, the largest part of an idle cluster's CPU after
 * kafkajs's own loop (patches/kafkajs+2.2.4.patch). Stalls of interest last 100 ms and more.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** Adds Node's default metrics (process_*, nodejs_*: CPU, memory, event loop, GC) to `registry`, once. */
export function addDefaultMetrics(registry: Registry = processRegistry): void {
  if (withDefaults.has(registry)) return;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  withDefaults.add(registry);
}

export interface MetricsServer {
  /** The bound port (the one asked for, or the one picked for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `registry` (with Node's default metrics added) at GET /metrics on `listen`
 * (host:port; port 0 picks a free port). Rejects when the address cannot be bound.
 */
export async function startMetricsServer(o: { listen: string; log: Logger; registry?: Registry }): Promise<MetricsServer> {
  const registry = o.registry ?? processRegistry;
  addDefaultMetrics(registry);
  return serveMetrics(o.listen, o.log, { collect: () => registry.metrics(), contentType: registry.contentType });
}

/** The messages between a cluster's supervising process and its workers about metrics. */
interface MetricsRequest {
  ladderMetrics: "request";
  id: number;
}
interface MetricsReply {
  ladderMetrics: "reply";
  id: number;
  metrics?: MetricJson[];
  error?: string;
}
type MetricJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>[number];
const isMetricsMessage = (m: unknown, kind: "request" | "reply"): boolean =>
  typeof m === "object" && m !== null && (m as MetricsRequest).ladderMetrics === kind;

/**
 * In a worker of Node's cluster module: answers the supervising process's requests for this
 * process's metrics (processRegistry, with Node's default metrics) instead of serving them itself.
 */
export function shareMetricsWithClusterPrimary(): void {
  addDefaultMetrics(processRegistry);
  process.on("message", (m: unknown) => {
    if (!isMetricsMessage(m, "request")) return;
    const { id } = m as MetricsRequest;
    processRegistry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ ladderMetrics: "reply", id, metrics } satisfies MetricsReply),
      (err: unknown) => process.send?.({ ladderMetrics: "reply", id, error: String(err) } satisfies MetricsReply),
    );
  });
}

/** A worker the supervising process can ask (node:cluster's Worker has these). */
export interface MetricsWorker {
  send(message: MetricsRequest): boolean;
  on(event: "message", listener: (m: unknown) => void): unknown;
  off(event: "message", listener: (m: unknown) => void): unknown;
  readonly process: { readonly pid?: number | undefined };
}

const WORKER_ANSWER_MS = 2_000;

/**
 * In the supervising process of Node's cluster module: serves at GET /metrics the metrics of the
 * workers `workers()` names (those that serve; each calls shareMetricsWithClusterPrimary), summed
 * by prom-client's AggregatorRegistry.aggregate (counters and histograms add up; so do gauges, ours
 * included: they count things). A worker that does not answer within 2 s is left out of that
 * scrape, and logged: its counters are missing from it, as they are once it has died.
 */
export async function startClusterMetricsServer(o: {
  listen: string;
  log: Logger;
  workers: () => readonly MetricsWorker[];
}): Promise<MetricsServer> {
  let next = 0;
  const ask = (w: MetricsWorker) =>
    new Promise<MetricJson[] | undefined>((resolve) => {
      const id = next++;
      const done = (metrics: MetricJson[] | undefined) => {
        clearTimeout(timer);
        w.off("message", listener);
        resolve(metrics);
      };
      const listener = (m: unknown) => {
        if (!isMetricsMessage(m, "reply") || (m as MetricsReply).id !== id) return;
        const reply = m as MetricsReply;
        if (reply.error) o.log.warn({ pid: w.process.pid, error: reply.error }, "a worker could not collect its metrics");
        done(reply.metrics);
      };
      const timer = setTimeout(() => {
        o.log.warn({ pid: w.process.pid, waitedMs: WORKER_ANSWER_MS }, "a worker did not send its metrics; left out of this scrape");
        done(undefined);
      }, WORKER_ANSWER_MS);
      w.on("message", listener);
      try {
        w.send({ ladderMetrics: "request", id });
      } catch {
        done(undefined); // its channel closed: it is dying
      }
    });
  const collect = async () => {
    const answers = await Promise.all(o.workers().map(ask));
    return AggregatorRegistry.aggregate(answers.filter((a): a is MetricJson[] => a !== undefined)).metrics();
  };
  return serveMetrics(o.listen, o.log, { collect, contentType: processRegistry.contentType });
}

interface Collector {
  collect(): Promise<string>;
  contentType: string;
}

async function serveMetrics(listen: string, log: Logger, collector: Collector): Promise<MetricsServer> {
  const { host, port } = splitListen(listen);
  const server = createServer((req, res) => void answer(collector, req, res, log));
  server.keepAliveTimeout = 65_000; // longer than scrape intervals: one connection per scraper
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => log.warn({ err }, "metrics server error"));
  const boundPort = (server.address() as AddressInfo).port;
  log.info({ address: listen, port: boundPort }, "metrics listening");
  return {
    port: boundPort,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(registry: Collector, req: IncomingMessage, res: ServerResponse, log: Logger): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/metrics") {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found: the metrics are at /metrics\n");
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("GET /metrics\n");
    return;
  }
  try {
    const text = await registry.collect();
    res.writeHead(200, { "content-type": registry.contentType }).end(req.method === "HEAD" ? undefined : text);
  } catch (err) {
    log.warn({ err }, "collecting metrics failed");
    res.writeHead(500, { "content-type": "text/plain" }).end(`collecting metrics failed: ${(err as Error).message}\n`);
  }
}

/** "127.0.0.1:9464" → {host, port}; "[::1]:9464" → {host: "::1", port}. */
export function splitListen(listen: string): { host: string; port: number } {
  const colon = listen.lastIndexOf(":");
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const port = Number(listen.slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`"${listen}" is not host:port`);
  return { host, port };
}
