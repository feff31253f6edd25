/**
 * The end-of-run summary for the terminal: one row per operation, then totals and lag.
 */
import type { LoadtestResult } from "../model/loadtest-result.js";

const fmt = (n: number, digits = 2) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

export function summaryText(r: LoadtestResult): string {
  const head = ["op", "calls", "calls/s", "errors", "not found", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms"];
  const rows = Object.entries(r.operations).map(([op, s]) => [
    op,
    fmt(s.calls),
    fmt(s.callsPerSec, 1),
    fmt(s.errors),
    fmt(s.notFound),
    ...[s.latencyMs.p50, s.latencyMs.p90, s.latencyMs.p99, s.latencyMs.p999, s.latencyMs.max].map((v) => fmt(v)),
  ]);
  const l = r.lag.latencyMs;
  const p = r.lag.probes;
  const errors = Object.entries(r.operations).flatMap(([op, s]) =>
    Object.entries(s.errorsByCode).map(([code, n]) => `${op} ${code} ${fmt(n)}`),
  );
  return [
    "",
    table([head, ...rows]),
    "",
    `total: ${fmt(r.totals.calls)} calls sent in ${fmt(r.elapsedMs / 1000, 1)} s${r.warmupSec ? ` (after ${r.warmupSec} s of warm-up, not counted)` : ""} = ${fmt(r.totals.callsPerSec, 1)} calls/s; ${fmt(r.totals.updatesPerSec, 0)} score updates/s acknowledged; ${fmt(r.totals.errors)} errors`,
    errors.length ? `by code: ${errors.join(", ")}` : "by code: none",
    r.pacing.kind === "open"
      ? `open loop: ${fmt(r.pacing.sent)} sent, ${fmt(r.pacing.unsent)} of the timetable not sent, peak ${fmt(r.pacing.peakInFlight ?? 0)} in flight`
      : `closed loop: ${fmt(r.pacing.sent)} sent`,
    p.started
      ? `freshness lag (ack -> visible): p50 ${fmt(l.p50)} ms, p90 ${fmt(l.p90)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms over ${fmt(p.seen)} probes (${fmt(p.timedOut)} timed out, ${fmt(p.superseded)} superseded)`
      : "freshness lag: no probes",
    ...(r.audit
      ? [
          `loss audit: ${fmt(r.audit.players)} players, ${fmt(r.audit.updates)} acknowledged increments: ${fmt(r.audit.lost)} lost, ${fmt(r.audit.doubled)} doubled (${fmt(r.audit.uncertain)} in failed calls and ${fmt(r.audit.excluded)} probed, not judged; settled ${fmt(r.audit.settledMs / 1000, 1)} s after the load)${r.audit.examples.length ? `; e.g. ${r.audit.examples.join("; ")}` : ""}`,
        ]
      : []),
    `client: peak RSS ${fmt(r.client.peakRssMb, 0)} MB, CPU ${fmt(r.client.cpuUserSec, 1)} s user + ${fmt(r.client.cpuSystemSec, 1)} s system`,
  ].join("\n");
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")).join("\n");
}
