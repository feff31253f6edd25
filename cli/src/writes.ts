/**
 * The writes: IngestService calls (`submit`, `erase`), and `demo`, which fills a board and reads it.
 */
import type { ServiceSet } from "@ladder/client";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { OPERATION } from "./enums.js";
import type { Values } from "./flags.js";
import { around, top } from "./reads.js";
import type { DEMO, ERASE, SUBMIT } from "./tables/writes.js";

export async function submit(c: ServiceSet, o: Values<typeof SUBMIT.flags>): Promise<string> {
  const res = await c.ingest.submitScores({
    updates: [
      {
        board: o.board,
        playerId: o.player,
        op: OPERATION[o.op],
        value: o.value ?? 0n,
        columns: o.columns ?? [],
        timestampMs: o.ts,
        eventId: o["event-id"] ?? "",
        alsoBoards: o.also ?? [],
        leaveBoard: o.leave ?? "",
        metadata: o.metadata ?? "",
        bracket: o.bracket,
      },
    ],
    reportRanks: o["report-ranks"],
  });
  const ranks = res.rankChanges.map(
    (r) =>
      `${r.board}${r.period ? `@${r.period}` : ""}: rank ${r.previousRank === 0n ? "none" : r.previousRank} -> ${r.newRank} of ${r.total} (score ${r.previousRank === 0n ? "none" : r.previousScore} -> ${r.newScore})`,
  );
  return [`accepted ${res.accepted} at ${res.offsets.map((p) => `partition ${p.partition} offset ${p.offset}`).join(", ")}`, ...ranks].join(
    "\n",
  );
}

/** Erases a player (every board without --boards) through the log. */
export async function erase(c: ServiceSet, o: Values<typeof ERASE.flags>): Promise<string> {
  const boards = o.boards ?? [];
  const res = await c.ingest.deletePlayer({ playerId: o.player, boards });
  return `erased ${o.player} from ${boards.length ? boards.join(", ") : "every board"} (tombstone at partition ${res.offset!.partition} offset ${res.offset!.offset}; reads with consistency token ${res.consistencyToken} see it applied)`;
}

/**
 * Fills a board with `players` players (scores 0..9999, so plenty of ties broken by
 * time), waits until the last write is visible, then shows the top and one neighbourhood.
 */
export async function demo(c: ServiceSet, o: Values<typeof DEMO.flags>): Promise<string> {
  const { board, players } = o;
  const batch = 500;
  const now = Date.now();
  for (let start = 0; start < players; start += batch) {
    const updates = [];
    for (let i = start; i < Math.min(players, start + batch); i++) {
      updates.push({
        board,
        playerId: `player-${String(i).padStart(6, "0")}`,
        op: Operation.BEST,
        value: BigInt(Math.floor(Math.random() * 10_000)),
        timestampMs: BigInt(now - Math.floor(Math.random() * 3_600_000)),
      });
    }
    await c.ingest.submitScores({ updates });
  }
  await waitVisible(c, board, players);
  const someone = `player-${String(Math.floor(Math.random() * players)).padStart(6, "0")}`;
  const none = { view: undefined, period: undefined, window: undefined };
  return [
    `submitted ${players} players to board "${board}"`,
    "",
    "top 10:",
    await top(c, { board, limit: 10, offset: 0n, cursor: undefined, mode: "unique", ...none }),
    "",
    `around ${someone}:`,
    await around(c, { board, player: someone, radius: 3, ...none }),
  ].join("\n");
}

/** Waits (30 s at most) until the board holds `players` players: the shards apply asynchronously. */
async function waitVisible(c: ServiceSet, board: string, players: number): Promise<void> {
  const until = Date.now() + 30_000;
  while ((await c.leaderboard.getTop({ board, limit: 1 })).total < BigInt(players)) {
    if (Date.now() > until) throw new Error(`the board did not reach ${players} players within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
