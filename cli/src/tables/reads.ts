/**
 * The tables of the reads: LeaderboardService through the router.
 */
import { command } from "../command-table.js";
import { bigInteger, decimal, integer, list, shaped, text } from "../flags.js";
import { BOARD, MODE, PLAYER, WHERE } from "./shared.js";

export const TOP = command({
  name: "top",
  service: "router",
  summary: "the best entries of a board, a page at a time",
  about:
    "Prints the page and the board's size, and the cursors of the next and previous pages: pass one as --cursor to page at any depth (--offset reaches 10,000 at most).",
  flags: {
    board: BOARD,
    limit: integer({ meaning: "entries on the page", default: "10", min: 1, max: 1000 }),
    offset: bigInteger({ meaning: "entries to skip from the top (offset + limit at most 10,000)", default: "0" }),
    cursor: text({
      meaning: "a page's next or previous cursor, printed by an earlier top",
      placeholder: "C",
      unsetMeans: "start at --offset",
    }),
    mode: MODE,
    ...WHERE,
  },
  example: "top --board global --limit 10",
});

export const RANK = command({
  name: "rank",
  service: "router",
  summary: "a player's rank, score and time on a board",
  flags: { board: BOARD, player: PLAYER, mode: MODE, ...WHERE },
  example: "rank --board global --player alice",
});

export const AROUND = command({
  name: "around",
  service: "router",
  summary: "the players just above and below a player",
  flags: {
    board: BOARD,
    player: PLAYER,
    radius: integer({ meaning: "neighbours on each side", default: "5", min: 1, max: 100 }),
    ...WHERE,
  },
  example: "around --board global --player alice --radius 5",
});

export const RANKS = command({
  name: "ranks",
  service: "router",
  summary: "several players' ranks, and their ranks among themselves",
  flags: {
    board: BOARD,
    players: list({ meaning: "the players' ids", required: true, placeholder: "P,..." }),
    mode: MODE,
    ...WHERE,
  },
  example: "ranks --board global --players alice,bob,carol",
});

export const STANDING = command({
  name: "standing",
  service: "router",
  summary: "one player on several boards, periods and windows at once",
  flags: {
    player: PLAYER,
    boards: list({
      meaning: "the boards: a name, with @PERIOD for a period and ~WINDOW for a window",
      required: true,
      item: shaped({ meaning: "", pattern: /^[^@~]+(@[^~]+)?(~.+)?$/, shape: "board[@period][~window]" }),
    }),
    mode: MODE,
  },
  example: "standing --player alice --boards global,daily@2026-11-30,daily~7d",
});

export const COUNT = command({
  name: "count",
  service: "router",
  summary: "how many players have points in a range, and the board's size",
  flags: {
    board: BOARD,
    min: bigInteger({ meaning: "count only players with at least these points", unsetMeans: "no lower bound" }),
    max: bigInteger({ meaning: "count only players with at most these points", unsetMeans: "no upper bound" }),
    ...WHERE,
  },
  example: "count --board global --min 1000 --max 1999",
});

export const AT = command({
  name: "at",
  service: "router",
  summary: "the entry at a rank, or at the top P percent",
  flags: {
    board: BOARD,
    rank: bigInteger({ meaning: "the rank (1 is the best)", placeholder: "K" }),
    top: decimal({ meaning: "a top percentage: the entry at rank ceil(P / 100 x players)", above: 0, max: 100 }),
    ...WHERE,
  },
  exactlyOne: [["rank", "top"]],
  example: "at --board global --top 10",
});

export const HISTOGRAM = command({
  name: "histogram",
  service: "router",
  summary: "a board's score histogram (a board created with --histogram)",
  flags: { board: BOARD, ...WHERE },
  example: "histogram --board arena",
});

export const APPROX = command({
  name: "approx",
  service: "router",
  summary: "a rank estimated from the histogram, with its exact bounds",
  flags: {
    board: BOARD,
    score: bigInteger({ meaning: "the points whose rank to estimate" }),
    player: text({ meaning: "the player whose rank to estimate, from its points", placeholder: "P" }),
    ...WHERE,
  },
  exactlyOne: [["score", "player"]],
  example: "approx --board arena --score 1250",
});

export const PERIODS = command({
  name: "periods",
  service: "router",
  summary: "the periods a board keeps, the current one first",
  flags: { board: BOARD },
  example: "periods --board daily-paris",
});

export const WATCH = command({
  name: "watch",
  service: "router",
  summary: "follow the top, or one player, as it changes (Ctrl-C stops)",
  about:
    "Without --player: prints the top each time it changes. With --player: prints the player's rank and what happened (overtaken by, passed, entered or left the top K). The stream resumes by itself after a reconnection.",
  flags: {
    board: BOARD,
    player: text({ meaning: "watch this player instead of the top", placeholder: "P", unsetMeans: "watch the top" }),
    limit: integer({ meaning: "entries of the top shown (without --player)", default: "10", min: 1, max: 100 }),
    "top-k": integer({ meaning: "with --player: report entering and leaving the top K (0: not)", default: "0", min: 0, placeholder: "K" }),
    "interval-ms": integer({ meaning: "at most one message per this many ms", default: "250", min: 50, max: 60_000 }),
    period: WHERE.period,
    window: WHERE.window,
  },
  example: "watch --board global --player alice --top-k 100",
});
