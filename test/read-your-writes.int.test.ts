// Read your writes under concurrency, on the real processes: several writers each own a set of
// players and write them over and over with rising scores (SET), and after every acknowledged batch
// read one of the players they just wrote, with the batch's consistency token, by GetRank and
// GetAround; other readers read the same board without tokens all the while. The router checks every
// token against the log's end offsets it caches (@ladder/log/log-ends) and waits for the shards to apply
// it (wait-applied.ts). On EVERY answer:
//   - a token read shows exactly the score its writer just wrote (the writer is the only one to write
//     that player, one batch at a time), never an older one, and is never refused (a fresh token is
//     usually ahead of the router's cached log ends: it must refresh, not reject);
//   - every page holds what a page must hold whatever the timing (oracle.ts pageProblems: no player
//     twice, ranks consecutive, 1 <= rank <= total, entries in the board's order), and the asked
//     player is in its own neighbourhood at its rank;
//   - the total never shrinks across reads that do not overlap (players are only added): a read that
//     starts after another has answered counts at least as many. Reads that overlap need not agree
//     in completion order: each shard is read at some instant inside its read, and a read that started
//     earlier may finish later with each shard read before the other read saw it.
import { describe, expect, it } from "vitest";
import { Operation, type Entry } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, perTest } from "./cluster-harness.js";
import { pageProblems, plainEntry } from "./oracle.js";

const { cluster } = perTest();
const BOARD = "ryw";
const WRITERS = 4;
const PLAYERS_PER_WRITER = 25;
const PLAIN_READERS = 8;
const RUN_MS = 10_000;
const MIN_TOKEN_READS = 200;

describe("read your writes under concurrency", () => {
  it("answers every token read with the score just written, and every page whole, while writers and readers run at once", async () => {
    const c = await cluster("ryw");
    const problems: string[] = [];
    const counts = { tokenReads: 0, plainReads: 0, plainUnavailable: 0, batches: 0 };
    let answeredTotal = 0; // the largest total of any read that has answered so far
    /** Call when a read starts; returns the check to run on its answer. */
    const startRead = () => {
      const floor = answeredTotal; // every read that answered before this one started
      return (what: string, entries: Entry[], total: number, asked?: string) => {
        const page = entries.map(plainEntry);
        for (const p of pageProblems(page, total)) problems.push(`${what}: ${p}`);
        if (asked !== undefined && !page.some((e) => e.playerId === asked)) problems.push(`${what}: ${asked} not in its own neighbourhood`);
        if (total < floor) problems.push(`${what}: total ${total}, but a read that answered before this one started counted ${floor}`);
        answeredTotal = Math.max(answeredTotal, total);
      };
    };
    const until = Date.now() + RUN_MS;

    const writer = async (w: number) => {
      const ids = Array.from({ length: PLAYERS_PER_WRITER }, (_, i) => `w${w}-${i}`);
      for (let step = 1; Date.now() < until; step++) {
        const value = BigInt(step * 10 + w); // rising with each batch of this writer
        const res = await c.ingest.submitScores({ updates: ids.map((playerId) => ({ board: BOARD, playerId, op: Operation.SET, value })) });
        counts.batches++;
        const asked = ids[step % ids.length]!;
        const checkRank = startRead();
        const rank = await outcome(c.router.getRank({ board: BOARD, playerId: asked, consistencyToken: res.consistencyToken }));
        const checkAround = startRead();
        const around = await outcome(
          c.router.getAround({ board: BOARD, playerId: asked, radius: 3, consistencyToken: res.consistencyToken }),
        );
        counts.tokenReads += 2;
        if ("code" in rank) problems.push(`rank ${asked} with token: ${rank.code} ${rank.details}`);
        else {
          if (rank.ok.entry!.score !== value) problems.push(`rank ${asked} with token: score ${rank.ok.entry!.score}, just wrote ${value}`);
          checkRank(`rank ${asked}`, [rank.ok.entry!], Number(rank.ok.total), asked);
        }
        if ("code" in around) problems.push(`around ${asked} with token: ${around.code} ${around.details}`);
        else {
          const me = around.ok.entries.find((e) => e.playerId === asked);
          if (me && me.score !== value) problems.push(`around ${asked} with token: score ${me.score}, just wrote ${value}`);
          checkAround(`around ${asked}`, around.ok.entries, Number(around.ok.total), asked);
        }
      }
    };

    const plainReader = async (r: number) => {
      for (let i = 0; Date.now() < until; i++) {
        const asked = `w${(r + i) % WRITERS}-${i % PLAYERS_PER_WRITER}`;
        const check = startRead();
        const read: Promise<{ entries: Entry[]; total: bigint }> =
          i % 2 === 0 ? c.router.getTop({ board: BOARD, limit: 20 }) : c.router.getAround({ board: BOARD, playerId: asked, radius: 4 });
        const top = await outcome(read);
        counts.plainReads++;
        if ("code" in top) {
          if (top.code === 5) continue; // NOT_FOUND: the player's first batch is not applied yet
          counts.plainUnavailable++;
          problems.push(`plain read: ${top.code} ${top.details}`);
          continue;
        }
        check(i % 2 === 0 ? "top" : `around ${asked}`, top.ok.entries, Number(top.ok.total), i % 2 === 0 ? undefined : asked);
      }
    };

    await Promise.all([
      ...Array.from({ length: WRITERS }, (_, w) => writer(w)),
      ...Array.from({ length: PLAIN_READERS }, (_, r) => plainReader(r)),
    ]);
    console.log(`[read-your-writes] ${JSON.stringify({ ...counts, problems: problems.length, first: problems.slice(0, 3) })}`);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(counts.tokenReads).toBeGreaterThanOrEqual(MIN_TOKEN_READS);
  });
});
