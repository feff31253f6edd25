/**
 * The loadtest's HTML report: one self-contained file (inline CSS and SVG, no script, no
 * network) with the run's options, a summary table per operation, errors by code, the
 * freshness lag, and charts: throughput over time, latency over time per operation,
 * freshness lag over time, and the latency spectrum (HdrHistogram's percentile plot).
 */
import type { LoadtestResult, OpSummary, PercentilePoint } from "../model/loadtest-result.js";
import { escapeXml as esc, lineChart, type Series, type Tick } from "./svg-chart.js";

const OP_COLORS: Record<string, string> = { write: "#d62728", top: "#2ca02c", rank: "#1f77b4", around: "#ff7f0e", lag: "#9467bd" };

export function renderHtml(r: LoadtestResult): string {
  const ops = Object.keys(r.operations) as Array<keyof LoadtestResult["operations"]>;
  const body = [
    `<h1>ladder loadtest: ${esc(r.name)}</h1>`,
    `<p>${esc(r.startedAt)}, ${(r.elapsedMs / 1000).toFixed(1)} s measured${r.warmupSec ? ` after a ${r.warmupSec} s warm-up (in the charts, not in the tables)` : ""}, ${esc(pacingText(r))}. Node ${esc(r.environment.node)}, ${r.environment.cpus} cores (${esc(r.environment.cpuModel)}).</p>`,
    section("Summary", summaryTable(r) + totalsLine(r)),
    section("Errors by gRPC code", errorsTable(r)),
    section("Freshness lag", lagText(r)),
    section("Throughput", lineChart({ title: "requests per second", xLabel: "time (s)", yLabel: "req/s", series: throughputSeries(r, ops) })),
    section("Latency over time", ops.map((op) => lineChart({ title: `${op}: latency per second`, xLabel: "time (s)", yLabel: "ms (log)", yLog: true, series: latencySeries(r, op) })).join("")),
    section("Freshness lag over time", lineChart({ title: "write acknowledged → visible to GetRank", xLabel: "time (s)", yLabel: "ms (log)", yLog: true, series: lagSeries(r) })),
    section("Latency spectrum", lineChart({ title: "latency by percentile (whole run)", xLabel: "percentile", yLabel: "ms (log)", yLog: true, xTicks: SPECTRUM_TICKS, series: spectrumSeries(r, ops) })),
    section("Options", `<pre>${esc(JSON.stringify(r.options, null, 2))}</pre>`),
  ];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(r.name)}</title><style>${CSS}</style></head><body>${body.join("\n")}</body></html>\n`;
}

const CSS = "body{font-family:sans-serif;margin:24px;max-width:1000px;color:#222}table{border-collapse:collapse;margin:8px 0}"
  + "td,th{border:1px solid #ddd;padding:4px 8px;text-align:right}th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}"
  + "svg{display:block;margin:8px 0}pre{background:#f7f7f7;padding:8px;font-size:12px}h2{margin-top:28px;border-bottom:1px solid #eee}";

function section(title: string, html: string): string {
  return `<h2>${esc(title)}</h2>${html}`;
}

function pacingText(r: LoadtestResult): string {
  const o = r.options as { pacing?: { kind: string; ratePerSec?: number; concurrency?: number } };
  const p = o.pacing;
  if (p?.kind === "closed") return `closed loop, ${p.concurrency} in flight`;
  const unsent = r.pacing.unsent ? `; ${r.pacing.unsent} requests of the timetable NOT sent (rate not kept)` : "";
  return `open loop at ${p?.ratePerSec} req/s, latency from intended send time (peak ${r.pacing.peakInFlight ?? "?"} in flight${unsent})`;
}

const fmt = (n: number, digits = 2) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

function summaryTable(r: LoadtestResult): string {
  const head = "<tr><th>operation</th><th>calls</th><th>calls/s</th><th>errors</th><th>not found</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>";
  const rows = Object.entries(r.operations).map(([op, s]: [string, OpSummary]) => {
    const l = s.latencyMs;
    return `<tr><td>${esc(op)}</td><td>${fmt(s.calls)}</td><td>${fmt(s.callsPerSec, 1)}</td><td>${fmt(s.errors)}</td><td>${fmt(s.notFound)}</td>`
      + [l.mean, l.p50, l.p90, l.p99, l.p999, l.max].map((v) => `<td>${fmt(v)} ms</td>`).join("") + "</tr>";
  });
  return `<table>${head}${rows.join("")}</table>`;
}

function totalsLine(r: LoadtestResult): string {
  const t = r.totals;
  return `<p>${fmt(t.calls)} calls, ${fmt(t.callsPerSec, 1)} calls/s, ${fmt(t.updatesPerSec, 0)} score updates/s acknowledged, ${fmt(t.errors)} errors. `
    + `Client process: peak RSS ${fmt(r.client.peakRssMb, 0)} MB, CPU ${fmt(r.client.cpuUserSec, 1)} s user + ${fmt(r.client.cpuSystemSec, 1)} s system.</p>`;
}

function errorsTable(r: LoadtestResult): string {
  const rows = Object.entries(r.operations).flatMap(([op, s]: [string, OpSummary]) =>
    Object.entries(s.errorsByCode).map(([code, n]) => `<tr><td>${esc(op)}</td><td>${esc(code)}</td><td>${fmt(n)}</td></tr>`));
  return rows.length ? `<table><tr><th>operation</th><th>code</th><th>calls</th></tr>${rows.join("")}</table>` : "<p>none</p>";
}

function lagText(r: LoadtestResult): string {
  const { probes: p, latencyMs: l } = r.lag;
  if (p.started === 0) return "<p>no probes ran (no writes, or --lag-every 0)</p>";
  return `<p>Time from SubmitScores acknowledged until GetRank shows the written score, polled every ${esc(String((r.options as { lag?: { pollMs?: number } }).lag?.pollMs))} ms. `
    + `${fmt(p.started)} probes: ${fmt(p.seen)} seen, ${fmt(p.timedOut)} timed out, ${fmt(p.superseded)} superseded by a later write, ${fmt(p.writeFailed)} whose write failed; ${fmt(p.polls)} polls (${fmt(p.pollErrors)} failed), not counted above.</p>`
    + `<table><tr><th>lag</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr><tr><td>ms</td>`
    + [l.mean, l.p50, l.p90, l.p99, l.p999, l.max].map((v) => `<td>${fmt(v)}</td>`).join("") + "</tr></table>";
}

function throughputSeries(r: LoadtestResult, ops: string[]): Series[] {
  const widths = r.series.map((p, i) => p.t - (i ? r.series[i - 1]!.t : 0) || 1);
  const perOp = ops.map((op) => ({
    name: op, color: OP_COLORS[op],
    points: r.series.map((p, i) => [p.t, p.ops[op as keyof typeof p.ops].count / widths[i]!] as const),
  }));
  const total = { name: "total", color: "#444", dashed: true, points: r.series.map((p, i) => [p.t, Object.values(p.ops).reduce((s, o) => s + o.count, 0) / widths[i]!] as const) };
  return [...perOp, total];
}

function latencySeries(r: LoadtestResult, op: string): Series[] {
  const pick = (f: "p50Ms" | "p99Ms" | "maxMs") => r.series.map((p) => {
    const point = p.ops[op as keyof typeof p.ops];
    return [p.t, point.count ? point[f] : null] as const;
  });
  const color = OP_COLORS[op];
  return [{ name: "max", points: pick("maxMs"), color: "#bbb" }, { name: "p99", points: pick("p99Ms"), color }, { name: "p50", points: pick("p50Ms"), color, dashed: true }];
}

function lagSeries(r: LoadtestResult): Series[] {
  const pick = (f: "p50Ms" | "p99Ms" | "maxMs") => r.series.map((p) => [p.t, p.lag.count ? p.lag[f] : null] as const);
  return [{ name: "max", points: pick("maxMs"), color: "#bbb" }, { name: "p99", points: pick("p99Ms"), color: OP_COLORS.lag }, { name: "p50", points: pick("p50Ms"), color: OP_COLORS.lag, dashed: true }];
}

/** x = log10(1 / (1 - p)): 90% at 1, 99% at 2, ...; the maximum drawn at 6. */
export function spectrumX(percentile: number): number {
  return percentile >= 100 ? 6 : Math.min(6, Math.log10(100 / (100 - percentile)));
}

const SPECTRUM_TICKS: Tick[] = [[0, "0%"], [50, "50%"], [90, "90%"], [99, "99%"], [99.9, "99.9%"], [99.99, "99.99%"], [99.999, "99.999%"], [100, "max"]]
  .map(([p, label]) => ({ value: spectrumX(p as number), label: label as string }));

function spectrumSeries(r: LoadtestResult, ops: string[]): Series[] {
  const toPoints = (ps: PercentilePoint[]) => ps.map((p) => [spectrumX(p.percentile), p.ms] as const);
  const series: Series[] = ops.map((op) => ({ name: op, color: OP_COLORS[op], points: toPoints(r.operations[op as keyof typeof r.operations]!.percentiles) }));
  if (r.lag.percentiles.length) series.push({ name: "freshness lag", color: OP_COLORS.lag, dashed: true, points: toPoints(r.lag.percentiles) });
  return series;
}
