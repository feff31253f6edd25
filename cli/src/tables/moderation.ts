/**
 * The tables of moderation: AdminService's moderation rpcs through the router (an admin token).
 */
import { command } from "../command-table.js";
import { integer, text } from "../flags.js";
import { BOARD, PLAYER } from "./shared.js";

/** `--board` of a moderation action: one board, or every board when unset. */
const ON_BOARD = text({ meaning: "the board (every period and window of it)", placeholder: "B", unsetMeans: "every board" });
const REASON = text({ meaning: "why, kept in the audit trail (1 to 500 bytes)", required: true, placeholder: "TEXT" });

export const HIDE = command({
  name: "hide",
  service: "router",
  summary: "hide a player on a board or on every board (a shadow ban): reads leave it out, ranks close the gap",
  about:
    "Written to the log and applied by the player's shard in order with its scores; its later writes are kept, hidden. Prints where the action is in the log and its consistency token.",
  flags: { player: PLAYER, board: ON_BOARD, reason: REASON },
  example: "hide --player cheater-1 --board speedrun --reason impossible-times",
});

export const UNHIDE = command({
  name: "unhide",
  service: "router",
  summary: "show a hidden player again: its entries back where its scores put them",
  about: "Without --board, lifts every hide of the player; with it, that board's own hide (a hide on every board still holds).",
  flags: { player: PLAYER, board: ON_BOARD, reason: REASON },
  example: "unhide --player cheater-1 --reason appeal-accepted",
});

export const DELETE_ENTRY = command({
  name: "delete-entry",
  service: "router",
  summary: "delete a player's entries of a board (every period and window, hidden ones too)",
  about: "Written to the log and applied in order with the player's scores; a later write starts a new entry.",
  flags: { player: PLAYER, board: BOARD, reason: REASON },
  example: "delete-entry --player cheater-1 --board speedrun --reason forged-run",
});

export const WIPE = command({
  name: "wipe",
  service: "router",
  summary: "empty a board's period (the current one by default; a board without periods: the board)",
  about:
    "One record in every partition of the log: each removes its players' entries in order with their writes; writes after it start new entries. A board with windows cannot be wiped.",
  flags: {
    board: BOARD,
    period: text({ meaning: "the period to wipe (`periods --board B` lists them)", placeholder: "ID", unsetMeans: "the current period" }),
    reason: REASON,
  },
  example: "wipe --board daily-kills --reason exploit-day",
});

export const AUDIT = command({
  name: "audit",
  service: "router",
  summary: "the moderation actions, newest first: what, to whom, where, by whom, when and why",
  flags: {
    player: text({ meaning: "only the actions on this player", placeholder: "P", unsetMeans: "every player" }),
    board: text({ meaning: "only the actions on this board", placeholder: "B", unsetMeans: "every board" }),
    limit: integer({ meaning: "how many at most", min: 1, max: 1000, default: "100" }),
  },
  example: "audit --player cheater-1",
});

export const HIDE_ABOVE = command({
  name: "hide-above",
  service: "router",
  summary: "hide every player above a board's score ceiling (boards update --ceiling sets it)",
  about: "One record in every partition of the log: each hides its players above the ceiling then; unhide shows one again.",
  flags: { board: BOARD, reason: REASON },
  example: "hide-above --board speedrun --reason ceiling-set",
});
