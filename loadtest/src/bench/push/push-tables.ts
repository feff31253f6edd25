/**
 * The push benchmark's tables: holding the watchers (how long until every stream's first message),
 * the router's memory and the processes' CPU at rest in each state, the write steps of the three
 * series (no watcher; every watcher; the WatchTop streams alone) with rates, changes, messages,
 * CPU and whether sustained, the push latency of each step with watchers, and what the change
 * stream costs the applies (per update, without watchers vs with the change streams on).
 */
import type { PushRun, RestFigures } from "./push-run.js";
import type { StepFigures } from "./push-step.js";
import type { PushPlan } from "../plan.js";
import { count, fixed1, fixed2, ms, rate, ratio, seconds } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

/** CPU µs per update: cores ÷ updates/s. */
export const usPerUpdate = (cores: number, perS: number) => (perS > 0 && Number.isFinite(cores) ? (cores / perS) * 1e6 : NaN);
const shifts = (s: StepFigures) => (s.eventsPerS.overtaken ?? 0) + (s.eventsPerS.passed ?? 0);
/** Who was watching during a step. */
export const heldLabel = (s: Pick<StepFigures, "watchers" | "tops">) =>
  s.watchers ? `${count(s.watchers)} + ${s.tops} tops` : s.tops ? `${s.tops} WatchTop only` : "none";

export function holdTable(run: Pick<PushRun, "hold">): Table {
  return tableOf(
    "Holding the watchers: every stream opened at once, until each had its first message",
    [run.hold],
    [
      ["streams", (h) => `${count(h.watchers)} WatchPlayer + ${h.tops} WatchTop`],
      ["HTTP/2 connections", (h) => `${count(h.connections)} + 1`],
      ["all first messages within", (h) => seconds(h.seconds)],
      ["first message p50 / p99 ms", (h) => `${ms(h.firstMs.p50)} / ${ms(h.firstMs.p99)}`],
    ],
  );
}

export function restTable(rest: readonly RestFigures[]): Table {
  return tableOf("At rest: the router's live heap (right after a full garbage collection) and the cores each process used", rest, [
    ["state", (r) => r.label],
    ["router live heap MiB", (r) => fixed1(r.routerLiveHeapMiB)],
    ["router", (r) => fixed2(r.cores.router)],
    ["shard nodes", (r) => fixed2(r.cores.shardNodes)],
    ["Redis", (r) => fixed2(r.cores.redis)],
    ["client (bench)", (r) => fixed2(r.cores.client)],
    ["machine / others", (r) => `${fixed2(r.cores.machine)} / ${fixed2(r.cores.others)}`],
  ]);
}

export function stepsTable(run: Pick<PushRun, "without" | "with" | "topsOnly">, p: Pick<PushPlan, "windowS" | "intervalMs">): Table {
  const messages = (s: StepFigures) => s.playerMessagesPerS + s.topMessagesPerS;
  return tableOf(
    `Write steps (open loop, ${p.windowS} s windows): rates, changes and messages per second, cores; watchers at interval_ms ${p.intervalMs}`,
    [...run.without, ...run.with, ...run.topsOnly],
    [
      ["watchers", heldLabel],
      ["offered updates/s", (s) => count(s.rate)],
      ["acked/s", (s) => rate(s.ackedPerS)],
      ["applied/s", (s) => rate(s.appliedPerS)],
      ["drain s", (s) => (Number.isFinite(s.drainS) ? s.drainS.toFixed(1) : "never")],
      ["changes/s", (s) => rate(s.changesPerS)],
      ["msgs/s", (s) => (s.watchers || s.tops ? rate(messages(s)) : "—")],
      ["rank shifts/s", (s) => (s.watchers ? rate(shifts(s)) : "—")],
      ["router µs/msg", (s) => (s.watchers ? count(usPerUpdate(s.cores.router, messages(s))) : "—")],
      [
        "cores: router / shard nodes / Redis / ingest / Kafka / client",
        (s) => [s.cores.router, s.cores.shardNodes, s.cores.redis, s.cores.ingest, s.cores.kafka, s.cores.client].map(fixed2).join(" / "),
      ],
      ["others", (s) => fixed2(s.cores.others)],
      ["live heap after MiB", (s) => fixed1(s.liveHeapAfterMiB)],
      ["sustained", (s) => (s.shortfalls.length ? `no: ${s.shortfalls.join("; ")}` : "yes")],
    ],
  );
}

export function latencyTable(steps: readonly StepFigures[]): Table {
  const rows = steps.flatMap((s) => [
    { s, kind: "own score (the watched player's)", x: s.own },
    { s, kind: "overtake (another player passes it)", x: s.overtake },
  ]);
  return tableOf("Push latency: a write's acknowledgement to the first message on the watcher's stream that shows it, ms", rows, [
    ["updates/s", (r) => count(r.s.rate)],
    ["write", (r) => r.kind],
    ["n", (r) => count(r.x?.n ?? 0)],
    ["p50", (r) => ms(r.x?.p50 ?? NaN)],
    ["p90", (r) => ms(r.x?.p90 ?? NaN)],
    ["p99", (r) => ms(r.x?.p99 ?? NaN)],
    ["max", (r) => ms(r.x?.max ?? NaN)],
  ]);
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
  const pairs = run.topsOnly.flatMap((w) => run.without.filter((o) => o.rate === w.rate).map((o) => ({ o, w })));
  const per = (s: StepFigures, rest: RestFigures | undefined, k: "shardNodes" | "redis" | "router") =>
    usPerUpdate(s.cores[k] - (rest?.cores[k] ?? 0), s.appliedPerS);
  const both =
    (k: "shardNodes" | "redis") =>
    ({ o, w }: { o: StepFigures; w: StepFigures }) =>
      `${count(per(o, restWithout, k))} / ${count(per(w, restWith, k))}`;
  const vs =
    (k: "shardNodes" | "redis") =>
    ({ o, w }: { o: StepFigures; w: StepFigures }) =>
      ratio(per(w, restWith, k), per(o, restWithout, k));
  return tableOf(
    "What the change stream costs the applies: each rate without watchers / with the WatchTop streams alone (the shards append every change while a router watches anything); CPU less each state's rest",
    pairs,
    [
      ["updates/s", ({ w }) => count(w.rate)],
      ["applied/s", ({ o, w }) => `${rate(o.appliedPerS)} / ${rate(w.appliedPerS)}`],
      ["changes appended/s", ({ o, w }) => `${rate(o.changesPerS)} / ${rate(w.changesPerS)}`],
      ["shard nodes CPU µs/update", both("shardNodes")],
      ["with ÷ without", vs("shardNodes")],
      ["Redis CPU µs/update", both("redis")],
      ["with ÷ without", vs("redis")],
      ["router CPU µs/update (its feeds)", ({ w }) => count(per(w, restWith, "router"))],
    ],
  );
}

export function pushTables(run: PushRun, p: PushPlan): Table[] {
  const restWithout = run.rest.find((r) => r.watchers === 0 && r.tops === 0);
  const restTops = run.rest.find((r) => r.watchers === 0 && r.tops > 0);
  return [holdTable(run), restTable(run.rest), stepsTable(run, p), latencyTable(run.with), costTable(run, restWithout, restTops)];
}
