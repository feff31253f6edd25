/**
 * `watch --board B [--limit 10]`: WatchTop, printing the top each time it changes;
 * `watch --board B --player P [--top-k K]`: WatchPlayer, printing the player's rank and what happened.
 * Runs until Ctrl-C. The client library resumes the stream from the last message after a reconnect.
 */
import { PlayerEvent_Kind as Kind } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { ServiceSet } from "@ladder/client";
import type { Values } from "./flags.js";
import { entriesTable } from "./format.js";
import type { WATCH } from "./tables/reads.js";

const EVENT: Record<number, string> = {
  [Kind.OVERTAKEN]: "overtaken by",
  [Kind.PASSED]: "passed",
  [Kind.ENTERED_TOP]: "entered the top",
  [Kind.LEFT_TOP]: "left the top",
  [Kind.SCORE_CHANGED]: "score now",
};

export async function watch(c: ServiceSet, o: Values<typeof WATCH.flags>): Promise<string> {
  const where = { board: o.board, period: o.period ?? "", window: o.window ?? "" };
  const intervalMs = o["interval-ms"];
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on("SIGINT", onSigint);
  let messages = 0;
  try {
    if (o.player !== undefined) {
      const topK = o["top-k"];
      for await (const m of c.leaderboard.watchPlayer({ ...where, playerId: o.player, topK, intervalMs }, { signal: controller.signal })) {
        messages++;
        const at = m.entry ? `rank ${m.entry.rank} of ${m.total}, score ${m.entry.score}` : `no score yet (${m.total} players)`;
        const events = m.events.map(
          (e) =>
            `${EVENT[e.kind] ?? "?"} ${e.kind === Kind.SCORE_CHANGED ? e.score : e.kind === Kind.ENTERED_TOP || e.kind === Kind.LEFT_TOP ? topK : e.otherPlayerId}`,
        );
        console.log(
          `#${m.sequence} ${new Date().toISOString()} ${o.player}: ${at}${m.resynced ? " (read again)" : ""}${events.length ? ` — ${events.join(", ")}` : ""}`,
        );
      }
    } else {
      for await (const m of c.leaderboard.watchTop({ ...where, limit: o.limit, intervalMs }, { signal: controller.signal })) {
        messages++;
        console.log(`#${m.sequence} ${new Date(Number(m.readAtMs)).toISOString()} (${m.total} players)\n${entriesTable(m.entries)}`);
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    process.off("SIGINT", onSigint);
  }
  return `${messages} messages`;
}
