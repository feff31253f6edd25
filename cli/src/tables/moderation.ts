/**
 * The tables of moderation: AdminService's moderation rpcs through the router (an admin token).
 */
import { command } from "../command-table.js";
import { text } from "../flags.js";
import { PLAYER } from "./shared.js";

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
