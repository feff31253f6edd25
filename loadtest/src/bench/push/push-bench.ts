/**
 * Benchmark "push": WatchPlayer and WatchTop streams held by the thousand, the write steps the
 * cluster sustains with and without them, and push latency. Method: push.md.
 */
import { distinctPlayers } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "../../workload/score-distribution.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_SPEC, seedUntilMs } from "../infra/bench-board.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { count, round2, size } from "../output/format.js";
import { pushTables } from "./push-tables.js";
import { startPushCluster, type PushCluster } from "./push-cluster.js";
import { atRest, restLine, settle, sleep, type RestFigures } from "./push-rest.js";
import { runStep, type StepFigures, type StepPlan, type StepWatchers } from "./push-step.js";
import { ProbeBook } from "./probe-book.js";
import { highestSustained, pcts, type Pcts } from "./step-summary.js";
import { WatcherPool } from "./watchers.js";
import { WriteDriver, type WriteDeps } from "./write-driver.js";

import type { HoldFigures, PushRun } from "./push-run.js";

export const BOARD = "push-bench";
/** Random streams of the watched players and of the writes (far from the other benches'). */
const WATCHED_STREAM = 900;
const WRITES_STREAM = 901;

export const pushBenchmark: Benchmark = {
  name: "push",
  method: "push/push.md",
  title: "Push streams: watchers held, writes sustained, push latency, on a real cluster",
  async run(ctx) {
    const p = ctx.plan.push;
    ctx.say(
      `starting a 3-shard cluster; ${size(p.players)} players through Kafka on "${BOARD}"; ${count(p.watchers)} WatchPlayer + ${p.tops} WatchTop streams over ${p.connections} + 1 connections`,
    );
    const pc = await startPushCluster(ctx);
    const { cluster } = pc;
    const { reader, writer } = cluster;
    const address = cluster.services.routerAddress;
    const book = new ProbeBook();
    const players = new WatcherPool({
      address,
      connections: p.connections,
      board: BOARD,
      intervalMs: p.intervalMs,
      onPlayerMessage: (player, m, at) => book.onMessage(player, m, at),
    });
    const tops = new WatcherPool({ address, connections: 1, board: BOARD, intervalMs: p.intervalMs, onPlayerMessage: () => {} });
    try {
      const seeded = await seedThroughKafka(ctx, cluster, BOARD, p.players);
      const watched = distinctPlayers(ctx.plan.seed, WATCHED_STREAM, p.watchers, p.players);
      const rest: RestFigures[] = [];
      const restHere = async (label: string, held: { watchers: number; tops: number }) => {
        rest.push(await atRest(pc, label, held, p.restS));
        ctx.say(restLine(rest.at(-1)!));
      };
      await restHere("no watcher (before any)", { watchers: 0, tops: 0 });

      const deps: WriteDeps = {
        ingest: () => writer.ingest(),
        router: () => reader.router(),
        board: BOARD,
        players: p.players,
        watched,
        rng: rngFor(ctx.plan.seed, WRITES_STREAM),
        scores: scoreSource(BENCH_SPEC, DEFAULT_SCORE_SHAPE, seedUntilMs()),
        mix: p.mix,
        clock: () => performance.now(),
      };
      const steps = {
        warmupS: p.warmupS,
        windowS: p.windowS,
        probeTimeoutS: p.probeTimeoutS,
        quietMs: Math.max(1000, 4 * p.intervalMs),
        intervalMs: p.intervalMs,
      };
      if ((await pc.flagsSet()) !== 0) throw new Error("a shard's change flag is set before any watcher");
      // warm-up, uncounted: the first series must not pay for cold JITs (ingest, shard nodes, Kafka) that the later ones find warm
      const warm = Math.max(...p.rates);
      await new WriteDriver(deps).run(warm, 0, p.windowS * 1000, async () => {});
      ctx.say(`  warm-up: ${count(warm)} updates/s for ${p.windowS} s, uncounted`);
      await settle(pc);
      const without = await series(ctx, pc, new WriteDriver(deps), steps, p.rates, {});
      if (without.some((s) => s.changesPerS !== 0)) throw new Error("without watchers, the shards appended to their change streams");

      // every watcher
      const t0 = performance.now();
      players.watchPlayers(watched);
      tops.watchTops(p.tops, p.topLimit);
      await Promise.all([players.firstMessages(600_000), tops.firstMessages(600_000)]);
      const firstAt = [...players.players.values(), ...tops.tops].map((v) => v.firstAt! - t0);
      const hold: HoldFigures = {
        watchers: watched.length,
        tops: p.tops,
        connections: p.connections,
        seconds: round2(Math.max(...firstAt) / 1000),
        firstMs: pcts(firstAt),
      };
      ctx.say(
        `  held ${count(hold.watchers)} + ${hold.tops} streams in ${hold.seconds} s (first message p50 ${Math.round(hold.firstMs.p50)} ms, p99 ${Math.round(hold.firstMs.p99)} ms)`,
      );
      const held = { watchers: watched.length, tops: p.tops };
      await restHere(`${count(watched.length)} + ${p.tops} watchers held`, held);

      const driver = new WriteDriver({ ...deps, probes: book, scoreOf: (player) => players.players.get(player)?.score });
      const withW = await series(ctx, pc, driver, steps, p.watchedRates, { players, tops, book }, async (s) => {
        s.liveHeapAfterMiB = (await pc.routerLive()).heapMiB;
        ctx.say(`    at rest: the router's live heap ${s.liveHeapAfterMiB} MiB`);
      });
      await restHere(`${count(watched.length)} + ${p.tops} watchers still held after the steps`, held);

      // the WatchTop streams alone: the change streams on, little for the router to do
      players.close();
      await restHere(`WatchPlayer streams closed, ${p.tops} WatchTop streams held`, { watchers: 0, tops: p.tops });
      const topsOnly = await series(ctx, pc, new WriteDriver(deps), steps, p.rates, { tops });

      tops.close();
      const t1 = performance.now();
      while ((await pc.flagsSet()) > 0 && performance.now() - t1 < 60_000) await sleep(500);
      const flagsGoneS = round2((performance.now() - t1) / 1000);
      await restHere("every stream closed, the change flags expired", { watchers: 0, tops: 0 });

      const run: PushRun = {
        seeded,
        rest,
        hold,
        without,
        with: withW,
        topsOnly,
        resetLines: pc.resetLines,
        flagsGoneS,
        sustained: { without: highestSustained(without), with: highestSustained(withW), topsOnly: highestSustained(topsOnly) },
      };
      ctx.say(
        `  highest rate sustained: ${count(run.sustained.without)} updates/s without watchers, ${count(run.sustained.with)} with ${count(watched.length)}, ${count(run.sustained.topsOnly)} with the WatchTop streams alone`,
      );
      return { figures: { plan: p, ...run }, tables: pushTables(run, p) };
    } finally {
      players.close();
      tops.close();
      await cluster.stop();
    }
  },
};

/**
 * The steps at `rates`, ascending; with probed watchers only until one is not sustained. `after`
 * runs after each step, at rest.
 */
async function series(
  ctx: BenchContext,
  pc: PushCluster,
  driver: WriteDriver,
  plan: Omit<StepPlan, "rate">,
  rates: readonly number[],
  w: StepWatchers,
  after?: (s: StepFigures) => Promise<void>,
): Promise<StepFigures[]> {
  const out: StepFigures[] = [];
  for (const rate of rates) {
    const s = await runStep(pc, driver, { ...plan, rate }, w);
    out.push(s);
    ctx.say(stepLine(s));
    await after?.(s);
    if (w.book && s.shortfalls.length) break;
    await settle(pc);
  }
  return out;
}

function stepLine(s: StepFigures): string {
  const lat = (x: Pcts | undefined) => (x ? `p50 ${Math.round(x.p50)} / p99 ${Math.round(x.p99)} ms (n ${x.n})` : "—");
  const who = s.watchers ? `${count(s.watchers)} + ${s.tops} watchers` : s.tops ? `${s.tops} WatchTop only` : "no watcher";
  return (
    `  ${who}, ${count(s.rate)} updates/s: acked ${count(s.ackedPerS)}/s, applied ${count(s.appliedPerS)}/s (drain ${s.drainS} s), changes ${count(s.changesPerS)}/s, messages ${count(s.playerMessagesPerS + s.topMessagesPerS)}/s, ` +
    `cores router ${s.cores.router} shards ${s.cores.shardNodes} Redis ${s.cores.redis} ingest ${s.cores.ingest} Kafka ${s.cores.kafka} client ${s.cores.client} others ${s.cores.others}` +
    (s.watchers ? `; own ${lat(s.own)}, overtake ${lat(s.overtake)}` : "") +
    (s.shortfalls.length ? `; NOT sustained: ${s.shortfalls.join("; ")}` : "; sustained")
  );
}
