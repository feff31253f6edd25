/**
 * What the approx benchmark's tables measure and how, for the Markdown summary: one paragraph
 * each, with the run's own sizes, bounds, checks and rest rates.
 */
import { DEFAULT_SCORE_SHAPE } from "../../workload/score-distribution.js";
import type { BenchContext } from "../context.js";
import { count, size } from "../output/format.js";
import { QUIET_S, type ApproxRun } from "./approx-bench.js";

/** "19, 27, 34, …, 37,575, 54,061": a long list of bounds by its ends. */
function boundsText(bounds: readonly number[]): string {
  return bounds.length <= 16 ? bounds.map(count).join(", ") : `${bounds.slice(0, 3).map(count).join(", ")}, …, ${bounds.slice(-2).map(count).join(", ")}`;
}

export function approxNotes(ctx: BenchContext, run: ApproxRun): string[] {
  const p = ctx.plan.approx;
  const shape = DEFAULT_SCORE_SHAPE;
  const idle = run.idle.map((i) => `router ${(i.routerS * 1000).toFixed(1)} ms/s, Redis ${(i.redisS * 1000).toFixed(1)} ms/s and ${i.redisScripts.toFixed(1)} scripts/s, machine ${i.machineS.toFixed(2)} cores`).join("; then ");
  const widest = (n: number) => count(p.players / (n + 1));
  return [
    `**The cluster and the boards**: the local cluster's layout (the run's Kafka broker, 3 redis-servers, 3 shard nodes, ingest, the router with its defaults), all on this machine's cores with the bench. `
      + `Two all-time boards defined with AdminService.CreateBoard with the default rules (points 0..2^31−1, 1-minute resolution, higher first, earlier first), default operation SET, and histogram_bounds: ${run.boards.map((b) => `"${b.name}" ${b.bounds.length} bounds (${boundsText(b.bounds)})`).join("; ")}. `
      + `The bounds are the k/(n+1) quantiles (k = 1..n) of the seeded score law (log-normal, median ${count(shape.medianPoints)}, sigma ${shape.sigma}), each the integer b with b − 0.5 nearest to the quantile (points are the law's values rounded): equal-depth buckets, each holding about 1/(n+1) of the players, so that no bound is wider than about players ÷ (n+1) ranks (${widest(16)} with 16 bounds, ${widest(255)} with 255 at ${size(p.players)}). `
      + `The same ${size(p.players)} players were seeded on both through Kafka by \`npm run seed\`, which writes a defined board as ingest does (every record carries the definition's rules, so the shard nodes keep its histogram), and waited for until applied: ${run.seeded.map((s) => s.replace(/\n/g, " ")).join("; ")}. Nothing wrote while anything was measured.`,
    `**Checked before measuring** (the Node client; a wrong answer fails the benchmark): ${run.checks.length} checks. On each board, GetHistogram's buckets are the bounds', sum to its total, the total is the ${count(p.players)} players seeded, and every bucket's count equals GetCount over its points range; for ${count(p.checkedPlayers)} players drawn uniformly (the same on both boards) and for the players at ranks ${run.accuracy[0]?.depth.map((d) => count(d.exact)).join(", ")} (GetEntryAtRank on the first board, found at that rank by GetRank on both): `
      + "GetApproximateRank(player_id) answers the player's points and rank_at_least <= GetRank's exact rank <= rank_at_most, with rank_estimate between them and the bounds and bucket those of GetHistogram (1 + the entries of better buckets; those + the entries of the player's bucket); "
      + "GetApproximateRank(score = the player's points) answers the same rank_at_least, bucket and estimate and a rank_at_most one higher (a score is ranked as one more entry would be: the proto's \"+ 1 for a score not on the board\"), and its bounds hold the ranks an entry with those points would take among the equal ones (1 + GetCount of more points to 1 + GetCount of at least as many); GetRank's own rank lies between those two counts. Every call the Node client times below is checked again against these answers (h2load sees HTTP statuses only: it asks about the same players).",
    `**Accuracy tables**: the bound width is rank_at_most − rank_at_least + 1 (the ranks the exact one may be), the estimate's error |rank_estimate − exact rank| in ranks and ÷ the exact rank; p50, p90, p99 and max by nearest rank over the sample of ${count(p.checkedPlayers)}, asked by player_id (the score's answer has the same estimate and a bound one wider). A uniform sample is a player's view of a board: its exact ranks are spread evenly over 1..${size(p.players)}, so the relative error is mostly that of mid-board ranks; the depth table shows the top, where the same bound is wide relative to the rank.`,
    `**Node client table**: for each board and call, ${count(p.nodeCalls)} calls one after another (after one uncounted), each about one of the sampled players in turn, timed from send to answer over 2 HTTP/2 connections. `
      + `CPU per call: the router process (/proc), the 3 redis-servers (INFO cpu) and the bench process (the Node client) over the block ÷ calls; Redis scripts per call: EVALSHA + EVAL calls (INFO commandstats; one per command the router sent a shard, reads of one shard in the same event-loop turn counting once). From each, the rate the same process shows at rest (read over ${QUIET_S} s before the Node blocks and again after them: ${idle}) times the block's length is taken out first. machine / others: the machine's busy cores during the block, and those of processes the bench did not start.`,
    `**h2load table**: h2load (${run.h2loadVersion}, a C client: one fixed request per run, ${p.connections} connections x ${p.streams} streams) against the router, ${p.seconds} s counted after 1 s of warm-up per run, ${p.rounds} round${p.rounds > 1 ? "s" : ""}: the health check first (the floor of a grpc-js call on this machine), then on each board GetRank, GetApproximateRank(score) and GetApproximateRank(player_id) about the round's player (each round another sampled player); after every run the bench waits until the router and Redis are back at rest. `
      + "÷ health check and ÷ GetRank are taken within each round (GetRank of the same board, asked just before), then the median over the rounds; calls/s and CPU are the medians of the rounds' own figures. CPU per call: the process's CPU over the whole run (warm-up included) less its rest rate, ÷ (rate × run length).",
  ];
}
