/**
 * The push benchmark's tables: holding the watchers (how long until every stream's first message),
 * the router's memory and the processes' CPU at rest in each state, the write steps of the three
 * series (no watcher; every watcher; the WatchTop streams alone) with rates, changes, messages,
 * CPU and whether sustained, the push latency of each step with watchers, and what the change
 * stream costs the applies (per update, without watchers vs with the change streams on).
 */
import type { PushRun, RestFigures } from "./push-run.js";
import type { StepFigures } from "./push-step.js";
import type { Pcts } from "./step-summary.js";
import type { PushPlan } from "../plan.js";
import { count, fixed1, fixed2, ms, rate, ratio, seconds } from "../output/format.js";
import type { Table } from "../output/table.js";

/** CPU µs per update: cores ÷ updates/s. */
export const usPerUpdate = (cores: number, perS: number) => (perS > 0 && Number.isFinite(cores) ? (cores / perS) * 1e6 : NaN);
const shifts = (s: StepFigures) => (s.eventsPerS.overtaken ?? 0) + (s.eventsPerS.passed ?? 0);
/** Who was watching during a step. */
export const heldLabel = (s: Pick<StepFigures, "watchers" | "tops">) =>
  s.watchers ? `${count(s.watchers)} + ${s.tops} tops` : s.tops ? `${s.tops} WatchTop only` : "none";

export function holdTable(run: Pick<PushRun, "hold">): Table {
  const h = run.hold;
  return {
    title: "Holding the watchers: every stream opened at once, until each had its first message",
    columns: ["streams", "HTTP/2 connections", "all first messages within", "first message p50 / p99 ms"],
    rows: [
      [
        `${count(h.watchers)} WatchPlayer + ${h.tops} WatchTop`,
        `${count(h.connections)} + 1`,
        seconds(h.seconds),
        `${ms(h.firstMs.p50)} / ${ms(h.firstMs.p99)}`,
      ],
    ],
  };
}

export function restTable(rest: readonly RestFigures[]): Table {
  return {
    title:
      "At rest: the router's memory (as it stands: RSS from /proc, V8 heap in use from its metrics; live: right after a full garbage collection) and the cores each process used",
    columns: [
      "state",
      "router RSS MiB",
      "heap MiB",
      "live heap MiB",
      "live RSS MiB",
      "router",
      "shard nodes",
      "Redis",
      "client (bench)",
      "machine / others",
    ],
    rows: rest.map((r) => [
      r.label,
      fixed1(r.routerRssMiB),
      fixed1(r.routerHeapMiB),
      fixed1(r.routerLiveHeapMiB),
      fixed1(r.routerLiveRssMiB),
      fixed2(r.cores.router),
      fixed2(r.cores.shardNodes),
      fixed2(r.cores.redis),
      fixed2(r.cores.client),
      `${fixed2(r.cores.machine)} / ${fixed2(r.cores.others)}`,
    ]),
  };
}

export function stepsTable(run: Pick<PushRun, "without" | "with" | "topsOnly">, p: Pick<PushPlan, "windowS" | "intervalMs">): Table {
  const steps = [...run.without, ...run.with, ...run.topsOnly];
  return {
    title: `Write steps (open loop, ${p.windowS} s windows): rates, changes and messages per second, cores; watchers at interval_ms ${p.intervalMs}`,
    columns: [
      "watchers",
      "offered updates/s",
      "acked/s",
      "applied/s",
      "drain s",
      "changes/s",
      "msgs/s",
      "rank shifts/s",
      "router µs/msg",
      "cores: router / shard nodes / Redis / ingest / Kafka / client",
      "others",
      "router loop delay p99 ms",
      "live heap after MiB",
      "sustained",
    ],
    rows: steps.map((s) => [
      heldLabel(s),
      count(s.rate),
      rate(s.ackedPerS),
      rate(s.appliedPerS),
      Number.isFinite(s.drainS) ? s.drainS.toFixed(1) : "never",
      rate(s.changesPerS),
      s.watchers || s.tops ? rate(s.playerMessagesPerS + s.topMessagesPerS) : "—",
      s.watchers ? rate(shifts(s)) : "—",
      s.watchers ? count(usPerUpdate(s.cores.router, s.playerMessagesPerS + s.topMessagesPerS)) : "—",
      [s.cores.router, s.cores.shardNodes, s.cores.redis, s.cores.ingest, s.cores.kafka, s.cores.client].map(fixed2).join(" / "),
      fixed2(s.cores.others),
      ms(s.routerLoopDelayMs.p99),
      fixed1(s.liveHeapAfterMiB),
      s.shortfalls.length ? `no: ${s.shortfalls.join("; ")}` : "yes",
    ]),
  };
}

export function latencyTable(steps: readonly StepFigures[]): Table {
  const row = (s: StepFigures, kind: string, fromAck: Pcts | undefined) => [
    count(s.rate),
    kind,
    count(fromAck?.n ?? 0),
    ms(fromAck?.p50 ?? NaN),
    ms(fromAck?.p90 ?? NaN),
    ms(fromAck?.p99 ?? NaN),
    ms(fromAck?.max ?? NaN),
  ];
  return {
    title: "Push latency: a write's acknowledgement to the first message on the watcher's stream that shows it, ms",
    columns: ["updates/s", "write", "n", "p50", "p90", "p99", "max"],
    rows: steps.flatMap((s) => [
      row(s, "own score (the watched player's)", s.own),
      row(s, "overtake (another player passes it)", s.overtake),
    ]),
  };
}

/**
 * Per rate measured both ways: applies and their CPU per update without watchers and with the
 * change streams on (the WatchTop streams alone), less what the same processes spend at rest
 * in each state (`restWithout`, `restWith`).
 */
export function costTable(
  run: Pick<PushRun, "without" | "topsOnly">,
  restWithout: RestFigures | undefined,
  restWith: RestFigures | undefined,
): Table {
  const rows: string[][] = [];
  for (const w of run.topsOnly) {
    const o = run.without.find((s) => s.rate === w.rate);
    if (!o) continue;
    const per = (s: StepFigures, rest: RestFigures | undefined, k: "shardNodes" | "redis" | "router") =>
      usPerUpdate(s.cores[k] - (rest?.cores[k] ?? 0), s.appliedPerS);
    rows.push([
      count(w.rate),
      `${rate(o.appliedPerS)} / ${rate(w.appliedPerS)}`,
      `${rate(o.changesPerS)} / ${rate(w.changesPerS)}`,
      `${count(per(o, restWithout, "shardNodes"))} / ${count(per(w, restWith, "shardNodes"))}`,
      ratio(per(w, restWith, "shardNodes"), per(o, restWithout, "shardNodes")),
      `${count(per(o, restWithout, "redis"))} / ${count(per(w, restWith, "redis"))}`,
      ratio(per(w, restWith, "redis"), per(o, restWithout, "redis")),
      count(per(w, restWith, "router")),
    ]);
  }
  return {
    title:
      "What the change stream costs the applies: each rate without watchers / with the WatchTop streams alone (the shards append every change while a router watches anything); CPU less each state's rest",
    columns: [
      "updates/s",
      "applied/s",
      "changes appended/s",
      "shard nodes CPU µs/update",
      "with ÷ without",
      "Redis CPU µs/update",
      "with ÷ without",
      "router CPU µs/update (its feeds)",
    ],
    rows,
  };
}

export function pushTables(run: PushRun, p: PushPlan): Table[] {
  const restWithout = run.rest.find((r) => r.watchers === 0 && r.tops === 0);
  const restTops = run.rest.find((r) => r.watchers === 0 && r.tops > 0);
  return [holdTable(run), restTable(run.rest), stepsTable(run, p), latencyTable(run.with), costTable(run, restWithout, restTops)];
}
