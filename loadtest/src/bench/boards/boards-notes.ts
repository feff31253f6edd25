/**
 * What the boards benchmark's tables measure and how, for the Markdown summary: one
 * paragraph each, with the run's own sizes, checks and timings.
 */
import { loadConfig } from "@ladder/platform/config";
import { count, size } from "../output/format.js";
import { benchPlan, type BenchPlan } from "../plan.js";
import type { BoardsRun } from "./boards-bench.js";
import { DAYS, KEEP_PERIODS, MAX_ALSO } from "./bench-boards.js";

export function boardsNotes(plan: BenchPlan, run: BoardsRun): string[] {
  const p = plan.boards;
  const r = p.reads;
  const w = p.writes;
  const checks = run.checks.map((c) => `${size(c.round)}, ${c.what}: ${c.players} players × ${c.keys} keys, ${c.differing + c.unexpectedKeys.length === 0 ? "all equal" : `**${c.differing} differing entries or expiries, ${c.unexpectedKeys.length} keys the pre-fill lacks** (see the JSON)`}`);
  const fills = run.fills.map((f) => `${size(f.round)} ${f.what}: ${count(f.members)} members in ${f.seconds} s`).join("; ");
  const copies = run.copies.map((c) => `${size(c.round)}: ${c.what}, ${c.seconds} s`).join("; ");
  const scripts = run.scriptLoadMs.map((s) => `${size(s.round)}: top ${s.top} ms, standing ${s.standing} ms`).join("; ");
  const peaks = run.peakUsedMemory.map((x) => `${size(x.round)}: ${count(x.bytes / 2 ** 20)} MiB`).join(", ");
  const fullLargest = Math.max(...benchPlan(false).boards.sizes);
  const batch = loadConfig({}).applyBatch;
  const m = run.memory;
  const perEntry = m ? (m.periodBytes + m.windowBytes) / (m.periodEntries + m.windowEntries) : 111; // measured here, else the seeding figure of the README
  const gb = (entries: number) => ((entries * perEntry) / 1e9).toFixed(1);
  return [
    `**The boards.** A daily board (UTC, ${KEEP_PERIODS} past days kept, default points range and 1-minute resolution, SET) with two windows, sum7 (SUM of 7 days) and best7 (BEST of 7 days); the same rules without windows ("plain", the single board every write is compared with); and ${MAX_ALSO} more boards with the plain board's rules, the also_boards. Defined with normalizeDefinition and specOfRules as CreateBoard defines them. Every player wrote one score on each of the ${DAYS} days ${run.days[0]} .. ${run.days[DAYS - 1]} (D1 .. D7, ending yesterday): log-normal points (median 1,000), a time uniform in the day. `
      + `One fresh redis-server per round is one shard; no shard node runs: the bench sets the shard's heartbeat key for the reads.`,
    `**Pre-fill and its check.** Keys are filled with ZADD of members encoded from model/src/windows.ts's definitions (loadtest/src/bench/boards/board-state.ts), in player order, each key given the expiry the apply path gives it (a daily key of the windowed board 6 days past its ${KEEP_PERIODS + 1}-day retention). Rounds of up to ${size(p.fullStateMaxPlayers)} players hold the windowed board's whole state after 7 days: 7 daily keys and the 13 keys of each window (a write into day i recomputes the windows ending in days i .. i+6, so after D1 .. D7 they end in D1 .. D13). `
      + `Larger rounds hold only the three keys read (D7, sum7 and best7 ending in D7), and the windowed write is not measured there: the plan keeps the whole state to ${size(p.fullStateMaxPlayers)} players because at ${size(fullLargest)} (the full plan's largest round) it is ${(33 * fullLargest) / 1e6}M entries, about ${gb(33 * fullLargest)} GB at the ${perEntry.toFixed(0)} bytes an entry ${m ? `measured here at ${size(m.players)}` : "of the README's seeding figures"}, and even a first day's (D7 and the 14 window keys ending D7 .. D13) ${gb(15 * fullLargest)} GB, beyond the 12 GB this benchmark keeps to on this machine. `
      + `The plain board and the also boards are server-side COPYs of D7 (the same records leave the same entries on boards of the same rules). Fills: ${fills}. Copies: ${copies}. `
      + `After each fill a sample of players' records went through the real apply path (encodeRecord as ingest, prepareEvent, ShardWriter.apply, ${batch} records per call) into a namespace of their own, and every pre-filled key was compared with it for those players, entries and expiries: ${checks.join("; ")}.`,
    `**Reads** (first table) go through ShardReader (store/src/reader.ts): the read scripts, heartbeat check and batching of the router, on one shard, where the router's answer is that shard's: top 10 = the shard's top, rank = the owner's standing (read-standing.lua) with radius 0, around = with radius ${r.aroundRadius}. gRPC, the router's merge and its decoding are not in these figures (the reads benchmark has them). `
      + `**first call**: the first call of each question on each key, alone, right after the fill and the memory readings, before any other read of that key (the read scripts were loaded before, with a read of an empty key: ${scripts} for that very first call on the connection, which includes EVALSHA's NOSCRIPT and the EVAL). **alone**: the next ${r.alone} calls one after another. **in flight**: a closed loop of ${r.concurrency} calls for ${r.warmupMs / 1000} s of warm-up and a ${r.durationMs / 1000} s window (infra/measure.ts); rank and around ask about uniformly drawn players, every one of whom has an entry in every key. `
      + `A window is maintained on apply (model/src/windows.ts): each window ending in a period is a sorted set of its own, so its read is a read of one sorted set, like a period's; there is no first read that builds it, and nothing is cached.`,
    `**Writes** (second table): records encoded as ingest encodes them (resolveBoard's steps, encodeScoreEvent: one SET on the main board and one per also_board in the same record, windowPlan on the windowed board), without event ids, for uniformly drawn existing players into day D7 (their score there is replaced, so every write changes it and, on the windowed board, recomputes 14 window entries from 13 daily keys). `
      + `They are prepared (prepareEvent) and applied (ShardWriter.apply) in chunks of one partition of the shard node's apply batch (LADDER_APPLY_BATCH, ${batch} records), ${w.inFlight} calls in flight, never two of one partition. Each write first runs ${w.warmupMs / 1000} s on records made on the fly (uncounted: it estimates the rate), then the records of about ${w.durationMs / 1000} s at that rate are made beforehand and applied, timed. `
      + `records/s counts records (a record with also_boards writes 1 + n boards); Redis CPU per record is the redis-server's used_cpu_user + used_cpu_sys (INFO cpu) over the timed part ÷ records; apply script µs/record is INFO commandstats' time in EVALSHA and EVAL ÷ records (the script alone, without reading and parsing the command); bench CPU per record is this process's (prepareEvent and ioredis). Ratios are to the single board's write of the same round.`,
    `**Memory** (third table): used_memory of the fresh server, then after the 7 daily keys, then after the 26 window keys, each time after any incremental rehash of the keys' hash tables was finished (infra/finish-rehash.ts, as the memory benchmark does; as-filled readings are in the JSON); bytes per player = the delta ÷ players. Only the round of ${size(p.fullStateMaxPlayers)} players holds the whole state. Peak used_memory per round: ${peaks}.`,
  ];
}
