/**
 * The tables of the writes: IngestService (and `demo`, which writes, then reads).
 */
import { command } from "../command-table.js";
import { bigInteger, int64, integer, list, oneOf, text, yesNo } from "../flags.js";
import { BOARD, PLAYER } from "./shared.js";

/** The operations a score update names; `default`: the board's own default operation. */
export const OPERATIONS = ["set", "inc", "increment", "dec", "decrement", "best", "default"] as const;

export const SUBMIT = command({
  name: "submit",
  service: "ingest",
  summary: "write a player's score on a board (and more boards in the same step)",
  about:
    "Prints where the update was written in the log (partition, offset); the shards apply it a moment later. Without --event-id it is sent once and never retried (a retry could count it twice).",
  flags: {
    board: BOARD,
    player: PLAYER,
    value: bigInteger({
      meaning: "the points, within the board's range",
      unsetMeans: "none (a board with columns takes --columns)",
    }),
    columns: list({
      meaning: "on a board with columns: one value per column, in the board's order, each a 64-bit integer",
      item: int64({ meaning: "" }),
      placeholder: "V,...",
      unsetMeans: "none (a board with one score)",
    }),
    op: oneOf({
      meaning: "how the value combines with the score (best: keep the better one; default: the board's own operation)",
      choices: OPERATIONS,
      default: "set",
      placeholder: "OP",
    }),
    ts: bigInteger({ meaning: "when the score was reached, Unix ms (0: now, by ingest's clock)", default: "0", placeholder: "MS" }),
    "event-id": text({
      meaning:
        "an idempotency key: the update is applied once however often it is sent, and it may be retried when the cluster is unavailable",
      placeholder: "ID",
      unsetMeans: "none (sent once, not retried)",
    }),
    also: list({ meaning: "more boards the update applies to, in the same atomic step", placeholder: "B,...", unsetMeans: "none" }),
    leave: text({ meaning: "a board the player is removed from in the same step (a division left)", placeholder: "B", unsetMeans: "none" }),
    metadata: text({
      meaning: "a small value kept with the entry and returned by reads (a JSON object, say), up to the board's --max-metadata",
      placeholder: "JSON",
      unsetMeans: "the entry's metadata stays as it is",
    }),
    "report-ranks": yesNo({ meaning: "wait until the shards applied it and print the player's rank before and after", default: "no" }),
    bracket: integer({
      meaning: "in a league with brackets: the skill bracket its first write of a period places the player by",
      min: 0,
      max: 99,
      default: "0",
      placeholder: "N",
    }),
  },
  exactlyOne: [["value", "columns"]],
  example: "submit --board global --player alice --value 1200",
});

export const ERASE = command({
  name: "erase",
  service: "ingest",
  summary: "erase a player from every board, or from some (through the log)",
  flags: {
    player: PLAYER,
    boards: list({ meaning: "the boards to erase the player from, all their periods", placeholder: "B,...", unsetMeans: "every board" }),
  },
  example: "erase --player alice",
});

export const DEMO = command({
  name: "demo",
  service: "ingest",
  summary: "fill a board with random players, then show its top and one neighbourhood",
  flags: {
    board: text({ meaning: "the board to fill", default: "demo", placeholder: "B" }),
    players: integer({ meaning: "how many players", default: "5000", min: 1, max: 1_000_000 }),
  },
  example: "demo --players 5000",
});
