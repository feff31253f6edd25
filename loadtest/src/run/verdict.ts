/**
 * Whether a finished loadtest run measured the cluster or only its refusals. A run fails
 * (exit code 1) when nothing was sent, when errors other than NOT_FOUND are at least half
 * of an operation's calls (so also when no write was acknowledged), when every read found nothing (the board was never seeded or written), or when the loss audit
 * found a lost or doubled increment. Each reason names the counts and codes, e.g.
 * "2,930 of 2,930 writes UNAUTHENTICATED". Errors below half of the calls are reported
 * but do not fail the run: an overloaded cluster shedding some load is a measurement.
 */
import type { LoadtestResult } from "../model/loadtest-result.js";

export interface Verdict {
  ok: boolean;
  /** Why the run failed, one line each; empty when ok. */
  reasons: string[];
  exitCode: 0 | 1;
}

const READS = ["top", "rank", "around"] as const;
const fmt = (n: number) => n.toLocaleString("en-US");

export function verdict(r: Pick<LoadtestResult, "operations" | "totals" | "audit">): Verdict {
  const reasons: string[] = [];
  if (r.totals.calls === 0) reasons.push("no call was sent in the measured window");
  for (const [op, s] of Object.entries(r.operations)) {
    if (!s || s.calls === 0 || s.errors * 2 < s.calls) continue;
    const codes = Object.entries(s.errorsByCode)
      .filter(([code]) => code !== "NOT_FOUND")
      .sort((a, b) => b[1] - a[1]);
    const what = codes.length === 1 ? codes[0]![0] : `failed (${codes.map(([code, n]) => `${fmt(n)} ${code}`).join(", ")})`;
    reasons.push(`${fmt(s.errors)} of ${fmt(s.calls)} ${op === "write" ? "writes" : `${op} reads`} ${what}`);
  }
  const reads = READS.map((op) => r.operations[op]).filter((s) => s !== undefined && s.calls > 0);
  const readCalls = reads.reduce((n, s) => n + s!.calls, 0);
  const readsNotFound = reads.reduce((n, s) => n + s!.notFound, 0);
  if (readCalls > 0 && readsNotFound === readCalls)
    reasons.push(
      `${fmt(readsNotFound)} of ${fmt(readCalls)} reads NOT_FOUND: the board holds none of the players read (seed it first with the same --board and --players: npm run seed)`,
    );
  if (r.audit && (r.audit.lost > 0 || r.audit.doubled > 0))
    reasons.push(`loss audit: ${fmt(r.audit.lost)} players lost increments, ${fmt(r.audit.doubled)} doubled`);
  return { ok: reasons.length === 0, reasons, exitCode: reasons.length ? 1 : 0 };
}

/** The verdict as the summary's last lines. */
export function verdictText(v: Verdict): string {
  return v.ok ? "verdict: ok" : ["verdict: FAILED", ...v.reasons.map((x) => `  - ${x}`)].join("\n");
}
