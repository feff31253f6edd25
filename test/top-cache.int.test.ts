// The router's top cache under concurrency, on the real processes (LADDER_TOP_CACHE_MS=200). Writers each own
// players and SET them to rising scores batch after batch; after each acknowledged batch a read with the
// batch's consistency token (which never uses the cache) shows it applied, and the test notes when. Plain
// readers ask GetTop all the while; most of their answers come from the cache. On EVERY answer:
//   - the page holds what a page must (oracle.ts pageProblems: no player twice, consecutive ranks from 1,
//     1 <= rank <= total, the board's order);
//   - the staleness bound holds: a batch that a token read showed applied more than 200 ms before a plain
//     read was sent is reflected in that answer (every player of that writer in the page has at least that
//     batch's score, and the total counts every player written by then): the cache serves what the shards
//     held at most 200 ms before the request, never older;
//   - token reads show their own batch (the cache never answers them).
// And the cache did answer: the router's ladder_router_top_cache_total counts hits.
import { describe, expect, it } from "vitest";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, perTest } from "./cluster-harness.js";
import { pageProblems, plainEntry } from "./oracle.js";
import { Scrape } from "./prom-text.js";

const { cluster } = perTest();
const BOARD = "hot";
const WRITERS = 3;
const PLAYERS_PER_WRITER = 10;
const READERS = 6;
const RUN_MS = 8_000;
const MAX_AGE_MS = 200;

describe("top cache", () => {
  it("answers every GetTop whole and no older than its bound while writers and readers run at once; token reads bypass it", async () => {
    const c = await cluster("topcache", { LADDER_TOP_CACHE_MS: String(MAX_AGE_MS) });
    const problems: string[] = [];
    const counts = { batches: 0, tokenReads: 0, plainReads: 0, staleChecks: 0 };
    // per writer: (when a token read showed batch value v applied, v), in order
    const applied: Array<Array<{ at: number; value: bigint }>> = Array.from({ length: WRITERS }, () => []);
    const until = Date.now() + RUN_MS;

    const writer = async (w: number) => {
      const ids = Array.from({ length: PLAYERS_PER_WRITER }, (_, i) => `c${w}-${i}`);
      for (let step = 1; Date.now() < until; step++) {
        const value = BigInt(step * 10 + w);
        const res = await c.ingest.submitScores({ updates: ids.map((playerId) => ({ board: BOARD, playerId, op: Operation.SET, value })) });
        counts.batches++;
        const top = await outcome(c.router.getTop({ board: BOARD, limit: 50, consistencyToken: res.consistencyToken }));
        counts.tokenReads++;
        if ("code" in top) {
          problems.push(`token top: ${top.code} ${top.details}`);
          continue;
        }
        for (const e of top.ok.entries)
          if (e.playerId.startsWith(`c${w}-`) && e.score !== value)
            problems.push(`token top: ${e.playerId} at ${e.score}, just wrote ${value}`);
        applied[w]!.push({ at: Date.now(), value });
      }
    };

    const reader = async () => {
      while (Date.now() < until) {
        const sentAt = Date.now();
        // what must be reflected: per writer, the newest batch shown applied more than the bound before sending
        const floor = applied.map((list) => list.filter((a) => a.at < sentAt - MAX_AGE_MS - 2).at(-1)?.value);
        const top = await outcome(c.router.getTop({ board: BOARD, limit: 20 }));
        counts.plainReads++;
        if ("code" in top) {
          problems.push(`top: ${top.code} ${top.details}`);
          continue;
        }
        const entries = top.ok.entries.map(plainEntry);
        for (const p of pageProblems(entries, Number(top.ok.total))) problems.push(`top: ${p}`);
        const written = floor.filter((v) => v !== undefined).length * PLAYERS_PER_WRITER;
        if (Number(top.ok.total) < written)
          problems.push(`top: total ${top.ok.total}, but ${written} players were applied more than ${MAX_AGE_MS} ms before`);
        for (const e of top.ok.entries) {
          const w = Number(e.playerId.slice(1, e.playerId.indexOf("-")));
          const min = floor[w];
          if (min === undefined) continue;
          counts.staleChecks++;
          if (e.score < min)
            problems.push(`top: ${e.playerId} at ${e.score}, but ${min} was applied more than ${MAX_AGE_MS} ms before the read`);
        }
      }
    };

    const hitsBefore = (await Scrape.of(c.services.metricsUrl("router"))).sum("ladder_router_top_cache_total", { outcome: "hit" });
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), ...Array.from({ length: READERS }, () => reader())]);
    const scrape = await Scrape.of(c.services.metricsUrl("router"));
    const outcomes = Object.fromEntries(
      ["hit", "joined", "refreshed"].map((o) => [o, scrape.sum("ladder_router_top_cache_total", { outcome: o })]),
    );
    console.log(`[top-cache] ${JSON.stringify({ ...counts, cache: outcomes, problems: problems.length, first: problems.slice(0, 3) })}`);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(counts.staleChecks).toBeGreaterThan(100);
    expect(outcomes.hit! - hitsBefore).toBeGreaterThan(counts.plainReads / 4); // the cache answered a good share
    expect(outcomes.refreshed).toBeGreaterThan(0);
  });
});
