import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { Health } from "@ladder/proto/grpc/health/v1/health_pb";
import { createClient } from "@ladder/client/grpc-stub";
import { grpcServerMetrics, listen, shutdown } from "./grpc-adapter.js";
import { HealthRegistry } from "./health.js";
import { silentLogger } from "./logger.js";
import {
  Counter,
  Histogram,
  HotCounter,
  HotHistogram,
  metricSet,
  Registry,
  splitListen,
  startMetricsServer,
  type MetricsServer,
} from "./metrics.js";

const undo: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (undo.length) await undo.pop()!();
});

describe("platform > metrics", () => {
  it("a metric set is made once per registry", () => {
    const made: Registry[] = [];
    const set = metricSet((registry) => {
      made.push(registry);
      return new Counter({ name: "test_things_total", help: "things", registers: [registry] });
    });
    const a = new Registry();
    const b = new Registry();
    expect(set(a)).toBe(set(a));
    expect(set(b)).not.toBe(set(a));
    expect(made).toEqual([a, b]);
  });

  it("serves the registry with Node's default metrics at GET /metrics on the port asked for (0: any), and only there", async () => {
    const registry = new Registry();
    new Counter({ name: "test_served_total", help: "served", registers: [registry] }).inc(3);
    const server: MetricsServer = await startMetricsServer({ listen: "127.0.0.1:0", log: silentLogger(), registry });
    undo.push(() => server.close());
    expect(server.port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^test_served_total 3$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: "POST" })).status).toBe(405);
  });

  it("the hot histogram and counter serve exactly what prom-client's would for the same observations, and reset as they do", async () => {
    const [ours, theirs] = [new Registry(), new Registry()];
    const buckets = [0.001, 0.01, 0.1, 1];
    const labelNames = ["shard", "code"];
    const hot = new HotHistogram({ name: "t_seconds", help: "h", labelNames, buckets, registers: [ours] });
    const ref = new Histogram({ name: "t_seconds", help: "h", labelNames, buckets, registers: [theirs] });
    const hotCount = new HotCounter({ name: "t_total", help: "c", labelNames, registers: [ours] });
    const refCount = new Counter({ name: "t_total", help: "c", labelNames, registers: [theirs] });
    const seen = [0.0005, 0.001, 0.002, 0.05, 0.1, 0.5, 2, 30];
    for (const [i, v] of seen.entries()) {
      const labels = [`s${i % 3}`, i % 2 ? "OK" : "UNAVAILABLE"] as const;
      hot.labels(...labels).observe(v);
      ref.labels(...labels).observe(v);
      hotCount.labels(...labels).inc();
      refCount.labels(...labels).inc();
    }
    expect(hot.labels("s0", "UNAVAILABLE")).toBe(hot.labels("s0", "UNAVAILABLE"));
    expect(() => hot.labels("s0")).toThrow(/label values/);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // the JSON a cluster's workers send (same series; prom-client adds an empty exemplar to buckets)
    const plain = (ms: Awaited<ReturnType<Registry["getMetricsAsJSON"]>>) =>
      ms.map((m) => ({
        ...m,
        values: m.values.map((v) => {
          const { exemplar: _, ...rest } = v as typeof v & { exemplar?: unknown };
          return rest;
        }),
      }));
    expect(plain(await ours.getMetricsAsJSON())).toEqual(plain(await theirs.getMetricsAsJSON()));
    ours.resetMetrics();
    theirs.resetMetrics();
    hot.labels("s1", "OK").observe(0.2);
    ref.labels("s1", "OK").observe(0.2);
    // prom-client forgets the children on reset; the hot ones keep theirs at zero
    expect((await ours.metrics()).split("\n").filter((l) => !/ 0$/.test(l))).toEqual(
      (await theirs.metrics()).split("\n").filter((l) => !/ 0$/.test(l)),
    );
  });

  it("refuses an address it cannot bind", async () => {
    const first = await startMetricsServer({ listen: "127.0.0.1:0", log: silentLogger(), registry: new Registry() });
    undo.push(() => first.close());
    await expect(startMetricsServer({ listen: `127.0.0.1:${first.port}`, log: silentLogger(), registry: new Registry() })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });

  it("splits host:port, IPv6 in brackets too", () => {
    expect(splitListen("127.0.0.1:9464")).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(splitListen("[::1]:0")).toEqual({ host: "::1", port: 0 });
    expect(() => splitListen("9464")).toThrow(/host:port/);
    expect(() => splitListen("h:99999")).toThrow(/host:port/);
  });

  it("the gRPC adapter counts every answered call by service, method and status code, with its latency", async () => {
    const server = new grpc.Server();
    new HealthRegistry().register(server, silentLogger());
    const port = await listen(server, "127.0.0.1:0");
    undo.push(() => shutdown(server, 100));
    const client = createClient(Health, `127.0.0.1:${port}`);
    undo.push(async () => client.close());
    const { handled, seconds } = grpcServerMetrics();
    const count = async (code: string) =>
      (await handled.get()).values.find(
        (v) => v.labels.grpc_service === "grpc.health.v1.Health" && v.labels.grpc_method === "Check" && v.labels.grpc_code === code,
      )?.value ?? 0;
    const [ok, notFound] = [await count("OK"), await count("NOT_FOUND")];
    await client.check({ service: "" });
    await client.check({ service: "" });
    await expect(client.check({ service: "nope" })).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    expect(await count("OK")).toBe(ok + 2);
    expect(await count("NOT_FOUND")).toBe(notFound + 1);
    const timed = (await seconds.get()).values.find(
      (v) =>
        v.metricName === "ladder_grpc_server_handling_seconds_count" && v.labels.grpc_method === "Check" && v.labels.grpc_code === "OK",
    );
    expect(timed?.value).toBe(ok + 2);
  });
});
