// deploy/grafana/ladder.json is a Grafana dashboard of the services' metrics: every series a panel queries
// must be one the code registers (a renamed metric would leave a panel silently empty), and every ladder_*
// metric the code registers has a panel.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { grpcServerMetrics } from "@ladder/platform/grpc-adapter";
import { addDefaultMetrics, Registry } from "@ladder/platform/metrics";
import { ingestMetrics } from "../ingest/src/metrics.js";
import { routerMetrics } from "../router/src/metrics.js";
import { shardNodeMetrics } from "../shard-node/src/metrics.js";

const DASHBOARD = join(dirname(fileURLToPath(import.meta.url)), "..", "deploy", "grafana", "ladder.json");

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Array<{ refId: string; expr: string }>;
}

/** Every series name the services can expose: their metric sets and Node's default metrics, on one registry. */
async function registeredSeries(): Promise<{ series: Set<string>; ladder: string[] }> {
  const registry = new Registry();
  grpcServerMetrics(registry);
  ingestMetrics(registry);
  shardNodeMetrics(registry);
  routerMetrics(registry);
  addDefaultMetrics(registry);
  const metrics = await registry.getMetricsAsJSON();
  const series = new Set<string>();
  for (const m of metrics) {
    if (String(m.type) === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) series.add(m.name + suffix);
    else series.add(m.name);
  }
  return { series, ladder: metrics.map((m) => m.name).filter((n) => n.startsWith("ladder_")) };
}

/** The metric names in a PromQL expression (ours and Node's: ladder_*, process_*, nodejs_*). */
const metricsIn = (expr: string) => [...expr.matchAll(/\b(?:ladder|process|nodejs)_[a-z0-9_]+/g)].map((m) => m[0]);

describe("deploy > grafana dashboard", () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
    uid: string;
    title: string;
    schemaVersion: number;
    panels: Panel[];
    templating: { list: Array<{ name: string; type: string }> };
  };
  const panels = dashboard.panels.filter((p) => p.type !== "row");

  it("is a Grafana dashboard with a Prometheus datasource variable and panels that do not overlap", () => {
    expect(dashboard.uid).toBe("ladder");
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: "datasource", type: "datasource" }));
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    const cells = new Set<string>();
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++) {
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${p.title} overlaps another panel`).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  it("every panel queries only series the code registers", async () => {
    const { series } = await registeredSeries();
    for (const p of panels) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) {
        const names = metricsIn(t.expr);
        expect(names.length, `${p.title}: ${t.expr}`).toBeGreaterThan(0);
        for (const name of names) expect(series.has(name), `${p.title}: ${name} is not a metric the code registers`).toBe(true);
      }
    }
  });

  it("every ladder_* metric the code registers has a panel", async () => {
    const { ladder } = await registeredSeries();
    const queried = new Set(
      panels.flatMap((p) => p.targets!.flatMap((t) => metricsIn(t.expr))).map((n) => n.replace(/_(bucket|sum|count)$/, "")),
    );
    for (const name of ladder) expect(queried.has(name), `${name} has no panel`).toBe(true);
  });
});
