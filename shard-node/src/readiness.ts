/**
 * Readiness: the shard node's heartbeat, which gates every read of its shard.
 *
 * Every third of the heartbeat TTL the node reads the log's end offsets of its partitions
 * and runs heartbeat.lua with what it knows it has applied. Readers are served only while
 * the heartbeat key holds the shard's stamp; otherwise they are told why (the key holds the
 * reason) or, when the node is gone and the key expired, that no node runs. The rules:
 *
 *   catch up      after a start, a rewind (the applier found Redis behind), data loss, or a
 *                 withdrawal below, the node takes the log's end offsets AT THAT MOMENT as
 *                 targets and serves again only once every partition has applied up to them:
 *                 never a partial board, however small the log.
 *   stall         while serving, if the applied offsets do not move for `stallMs` while the
 *                 shard is behind the log (a consumer crash-looping, a batch that always
 *                 fails, a stuck rebalance), the node stops serving and must catch up again.
 *   lag           while serving, if the shard stays more than `maxLag` records behind the
 *                 log for longer than `maxLagMs`, likewise.
 *   lost data     Redis holding less than the node applied (restarted empty, flushed, older
 *                 data swapped in): the node rewinds those partitions and catches up (from the
 *                 newest snapshot when there is one: onLost, snapshots.ts).
 *   drift         Redis built from another topic, slots or board specs (identity.ts): the
 *                 node stops for good (onDrift), nothing is written.
 *
 * A node that dies stops refreshing, and reads fail with UNAVAILABLE within one TTL.
 *
 * Bounded staleness: each heartbeat also says as of when the shard held every record of the log
 * (current-as-of.ts: the newest answer of end offsets it has applied up to), on the Redis's clock,
 * and the read scripts refuse the shard once that is more than the bound ago, `stallMs` + 2 TTLs
 * ("shard node is not current"). A node cut from Kafka (no new end offsets, no records) or from its
 * Redis (no new heartbeat) is refused at the latest a bound after the moment it was last known
 * current, even while its heartbeat still says "serving"; so no answer misses a write acknowledged
 * more than the bound before it was read. The 2 TTLs are the margin a healthy node needs: its as-of
 * trails the present by a tick for the question and one for the heartbeat that carries it (each a
 * third of the TTL, longer on a loaded machine), so a healthy shard is never refused by the bound.
 *
 * Kafka slow or away (a broker failing over, restarting) does not stop the heartbeat: the log's end
 * offsets are asked with one request at a time and waited for a third of the TTL at most; while an
 * answer is late the tick goes on with the last one, for at most `stallMs` (past that the node
 * withdraws: it cannot tell how far behind it is). The source check (verifySource) runs beside the
 * ticks in the same way. So a serving shard keeps serving what it holds through a broker's failover
 * (nothing can be acknowledged that it lacks for longer than that bound without its applier stalling).
 */
import type { LogClient } from "@ladder/log/log-client";
import type { Logger } from "@ladder/platform/logger";
import { explainMismatch } from "@ladder/store";
import { HeartbeatStatus, type ShardWriter } from "@ladder/store/writer";
import type { Applier } from "./applier.js";
import type { ShardMetrics } from "./metrics.js";
import { CurrentAsOf } from "./current-as-of.js";

export interface ReadinessOptions {
  writer: ShardWriter;
  logClient: LogClient;
  topic: string;
  slots: readonly number[];
  applier: Applier;
  ttlMs: number;
  /** Stop serving when the applied offsets do not move for this long while behind. */
  stallMs: number;
  /** Stop serving when more than `maxLag` records behind for longer than `maxLagMs`. */
  maxLag: number;
  maxLagMs: number;
  log: Logger;
  /** Checked every tick: a problem with the log the shard was built from (e.g. the topic was recreated). */
  verifySource(): Promise<string | undefined>;
  /** The shard's Redis or its log is not what the node was built from: the node must stop. */
  onDrift(problem: string): void;
  /** Redis lost data (after the rewind; the node is catching up): e.g. refill from a snapshot. */
  onLost?(): void;
  /** Shows the state and the lag per partition at every heartbeat (metrics.ts). */
  metrics?: ShardMetrics;
}

export interface Readiness {
  /** The applier rewound: the shard must catch up (to the log's end as of now) before serving again. */
  fallBehind(why: string): void;
  /** True while the heartbeat last said the shard serves reads. */
  readonly serving: boolean;
  /** Records the shard was behind the log's end at the last heartbeat (infinite before the first end offsets). */
  readonly lag: number;
  /** Stops the heartbeat and withdraws it, so reads fail fast rather than go stale. */
  stop(): Promise<void>;
}

/** Catching up: `targets` are taken from the first end offsets read after `since` (ms), never an older answer. */
type Mode = { kind: "catch-up"; why: string; since: number; targets?: Map<number, bigint>; targetsAskedAt?: number } | { kind: "serve" };
const catchUp = (why: string): Mode => ({ kind: "catch-up", why, since: Date.now() });

export function startReadiness(opts: ReadinessOptions): Readiness {
  const { writer, logClient, topic, slots, applier, ttlMs, log } = opts;
  let mode: Mode = catchUp("a start");
  let progress = { at: Date.now(), applied: -1n };
  let lagAboveSince: number | undefined;
  let withdrawal: string | undefined;
  let running: Promise<void> = Promise.resolve();
  let logLag = Number.POSITIVE_INFINITY;

  const appliedSum = () => slots.reduce((sum, p) => sum + (applier.known.get(p) ?? -1n), 0n);
  const waitMs = Math.max(50, Math.floor(ttlMs / 3));
  const probe = new LateAnswers(() => logClient.endOffsetsOnce(topic));
  const source = new LateAnswers(() => opts.verifySource());
  const current = new CurrentAsOf();
  const behind = (why: string): Mode => {
    current.reset();
    return catchUp(why);
  };

  const tick = async () => {
    const checked = await source.latest(0); // never waited for: its answer comes with a later tick
    if (checked?.value) return opts.onDrift(checked.value);
    const got = await probe.latest(waitMs);
    if (!got) return; // no end offsets yet: the heartbeat waits (reads refused until one comes)
    const now = Date.now();
    if (now - got.at > opts.stallMs) {
      if (mode.kind === "serve" && !withdrawal)
        withdrawal = `the score log's end offsets could not be read for ${Math.round((now - got.at) / 1000)} s`;
    }
    const ends = got.value;
    current.seen(got.askedAt, ends);
    current.update(slots, (p) => applier.known.get(p) ?? -1n);
    if (!current.hasClock) current.clock(await writer.redisNowMs(), performance.now());
    if (mode.kind === "catch-up" && !mode.targets && got.at >= mode.since) {
      mode.targets = ends;
      mode.targetsAskedAt = got.askedAt;
      log.info({ why: mode.why, targets: Object.fromEntries(ends) }, "catching up with the log before serving");
    }
    if (mode.kind === "serve" && now - got.at <= opts.stallMs) withdrawal = servingProblem(ends, now);
    // the end offsets known are older than the catch-up: refused until a newer answer comes (the
    // log may have grown past them while Kafka was away; serving up to them could be unboundedly stale)
    const awaitingEnds = mode.kind === "catch-up" && !mode.targets;
    const targets = (mode.kind === "catch-up" ? mode.targets : undefined) ?? ends;
    const partitions = slots.map((p) => ({ partition: p, known: applier.known.get(p) ?? -1n, target: targets.get(p) ?? 0n }));
    logLag = 0;
    for (const p of slots) {
      const behindHere = Math.max(0, Number((ends.get(p) ?? 0n) - 1n - (applier.known.get(p) ?? -1n)));
      logLag += behindHere;
      opts.metrics?.setLag(p, behindHere);
    }
    const request = withdrawal
      ? { mode: "withdraw" as const, reason: withdrawal }
      : mode.kind === "catch-up" && awaitingEnds
        ? { mode: "withdraw" as const, reason: `catching up with the log after ${mode.why}: its end offsets not read since` }
        : mode.kind === "catch-up"
          ? { mode: "catch-up" as const, reason: `catching up with the log after ${mode.why}` }
          : { mode: "serve" as const, reason: "" };
    // the staleness bound (current-as-of.ts); never current yet: as of 0, refused as not current until it is
    const targetsAskedAt = mode.kind === "catch-up" && mode.targets ? mode.targetsAskedAt! : got.askedAt;
    const asOf = {
      asOfMs: current.redisAsOf() ?? 0,
      targetsAsOfMs: current.onRedisClock(targetsAskedAt),
      boundMs: staleBoundMs(opts.stallMs, ttlMs),
    };
    const res = await writer.heartbeat({ ttlMs, partitions, ...request, current: asOf });
    if (res.status !== HeartbeatStatus.DRIFT) current.clock(res.redisNowMs, performance.now());
    if ((res.status === HeartbeatStatus.OK || res.status === HeartbeatStatus.LAGGING) && res.lag === 0) current.reached(targetsAskedAt);
    if (res.status !== HeartbeatStatus.DRIFT)
      opts.metrics?.setState(
        res.status === HeartbeatStatus.OK ? "serving" : res.status === HeartbeatStatus.WITHDRAWN ? "withdrawn" : "catching_up",
      );
    switch (res.status) {
      case HeartbeatStatus.DRIFT:
        opts.onDrift(`its Redis now holds data built from something else: ${explainMismatch(writer.builtFrom, res.builtFrom ?? "")}`);
        return;
      case HeartbeatStatus.LOST:
        log.warn(
          { partitions: [...res.lost.keys()], lag: res.lag },
          "Redis holds less than was applied (data lost): replaying from the log",
        );
        for (const [partition, stored] of res.lost) applier.rewind(partition, stored);
        mode = behind("Redis lost data");
        opts.onLost?.();
        return;
      case HeartbeatStatus.WITHDRAWN:
        if (awaitingEnds && !withdrawal) return; // still catching up: waiting for the end offsets
        log.warn({ reason: withdrawal, lag: res.lag }, "stopped serving reads");
        mode = behind(withdrawal!);
        withdrawal = undefined;
        return;
      case HeartbeatStatus.LAGGING:
        log.info({ lag: res.lag }, "catching up with the log; reads refused until then");
        return;
      case HeartbeatStatus.OK:
        if (mode.kind === "catch-up") {
          log.info({ after: mode.why }, "caught up with the log: serving reads");
          mode = { kind: "serve" };
          progress = { at: now, applied: appliedSum() };
          lagAboveSince = undefined;
        }
        return;
    }
  };

  /** While serving: why the node must stop (stall or lag past its bounds), or undefined. */
  const servingProblem = (ends: Map<number, bigint>, now: number): string | undefined => {
    const lag = slots.reduce((sum, p) => sum + Math.max(0, Number((ends.get(p) ?? 0n) - 1n - (applier.known.get(p) ?? -1n))), 0);
    const applied = appliedSum();
    if (applied !== progress.applied || lag === 0) progress = { at: now, applied };
    if (lag > 0 && now - progress.at > opts.stallMs)
      return `the applier applied nothing for ${Math.round((now - progress.at) / 1000)} s while ${lag} records behind the log`;
    if (lag <= opts.maxLag) {
      lagAboveSince = undefined;
      return undefined;
    }
    lagAboveSince ??= now;
    if (now - lagAboveSince > opts.maxLagMs)
      return `${lag} records behind the log, more than ${opts.maxLag} for over ${Math.round(opts.maxLagMs / 1000)} s`;
    return undefined;
  };

  const schedule = (before?: () => void) => {
    running = running.then(() => (before?.(), tick())).catch((err: unknown) => log.warn({ err }, "heartbeat failed"));
  };
  // Catching up, the shard serves from the first heartbeat after its applier reached the targets:
  // that heartbeat is sent at once rather than at the next tick (a third of the TTL later), so a
  // start (after a move's cut-over, a rebuild's swap) refuses reads only as long as the catch-up.
  // One such heartbeat is queued at a time (`nudged` until it runs), whatever the apply calls meanwhile.
  let nudged = false;
  const reachedTargets = () => {
    const targets = mode.kind === "catch-up" ? mode.targets : undefined;
    return targets !== undefined && slots.every((p) => (applier.known.get(p) ?? -1n) >= (targets.get(p) ?? 0n) - 1n);
  };
  const unwatch = applier.onProgress(() => {
    if (nudged || !reachedTargets()) return;
    nudged = true;
    schedule(() => (nudged = false));
  });
  const timer = setInterval(() => schedule(), Math.max(50, Math.floor(ttlMs / 3)));
  schedule();

  return {
    get serving() {
      return mode.kind === "serve" && withdrawal === undefined;
    },
    get lag() {
      return logLag;
    },
    fallBehind(why) {
      if (mode.kind === "serve" || mode.targets) mode = behind(why);
    },
    async stop() {
      clearInterval(timer);
      unwatch();
      await running;
      await writer.clearHeartbeat().catch((err: unknown) => log.warn({ err }, "could not clear heartbeat"));
    },
  };
}

/** How long after the node last held the log's end its shard is served (see the essay): `stallMs` + 2 heartbeat TTLs. */
export function staleBoundMs(stallMs: number, ttlMs: number): number {
  return stallMs + 2 * ttlMs;
}

/**
 * A slow question asked one at a time: latest(waitMs) starts it unless it runs, waits for its answer
 * at most `waitMs`, and returns the newest answer it has (with when it came), or undefined before the
 * first. A failure leaves the previous answer.
 */
class LateAnswers<T> {
  private running: Promise<void> | undefined;
  private answer: { value: T; at: number; askedAt: number } | undefined;

  constructor(private readonly ask: () => Promise<T>) {}

  /** The newest answer: `at` when it came (Date.now()), `askedAt` when its question was asked (performance.now()). */
  async latest(waitMs: number): Promise<{ value: T; at: number; askedAt: number } | undefined> {
    if (!this.running) {
      const askedAt = performance.now();
      this.running = this.ask()
        .then(
          (value) => void (this.answer = { value, at: Date.now(), askedAt }),
          () => {},
        )
        .finally(() => (this.running = undefined));
    }
    if (waitMs > 0) await Promise.race([this.running, new Promise((r) => setTimeout(r, waitMs))]);
    return this.answer;
  }
}
