/**
 * Every command of the CLI, in the order help lists them, and the connection flags every command
 * takes. The tables themselves are in reads.ts, writes.ts, boards.ts, tournaments.ts, leagues.ts, teams.ts, moderation.ts, export.ts and admin.ts.
 */
import type { Command } from "../command-table.js";
import { text } from "../flags.js";
import { PLACEMENT, REBUILD, REBUILDS, RESHARD, STATUS } from "./admin.js";
import { BOARDS_CREATE, BOARDS_DELETE, BOARDS_GET, BOARDS_LIST, BOARDS_UPDATE, CLOSES } from "./boards.js";
import { APPROX, AROUND, AT, COUNT, HISTOGRAM, PERIODS, RANK, RANKS, STANDING, TOP, WATCH } from "./reads.js";
import { DEMO, ERASE, SUBMIT } from "./writes.js";
import { AUDIT, DELETE_ENTRY, HIDE, HIDE_ABOVE, UNHIDE, WIPE } from "./moderation.js";
import { EXPORT } from "./export.js";
import { TOURNAMENTS_CREATE, TOURNAMENTS_GET, TOURNAMENTS_JOIN, TOURNAMENTS_LIST } from "./tournaments.js";
import { LEAGUES_CREATE, LEAGUES_GET, LEAGUES_STANDING } from "./leagues.js";
import { TEAMS_CREATE, TEAMS_GET, TEAMS_SET } from "./teams.js";

export const COMMANDS = Object.freeze({
  submit: SUBMIT,
  erase: ERASE,
  demo: DEMO,
  top: TOP,
  rank: RANK,
  around: AROUND,
  ranks: RANKS,
  standing: STANDING,
  count: COUNT,
  at: AT,
  histogram: HISTOGRAM,
  approx: APPROX,
  periods: PERIODS,
  watch: WATCH,
  "boards list": BOARDS_LIST,
  "boards get": BOARDS_GET,
  "boards create": BOARDS_CREATE,
  "boards update": BOARDS_UPDATE,
  "boards delete": BOARDS_DELETE,
  closes: CLOSES,
  "tournaments list": TOURNAMENTS_LIST,
  "tournaments get": TOURNAMENTS_GET,
  "tournaments create": TOURNAMENTS_CREATE,
  "tournaments join": TOURNAMENTS_JOIN,
  "leagues standing": LEAGUES_STANDING,
  "leagues get": LEAGUES_GET,
  "leagues create": LEAGUES_CREATE,
  "teams get": TEAMS_GET,
  "teams set": TEAMS_SET,
  "teams create": TEAMS_CREATE,
  hide: HIDE,
  unhide: UNHIDE,
  "delete-entry": DELETE_ENTRY,
  wipe: WIPE,
  "hide-above": HIDE_ABOVE,
  audit: AUDIT,
  export: EXPORT,
  rebuild: REBUILD,
  rebuilds: REBUILDS,
  reshard: RESHARD,
  placement: PLACEMENT,
  status: STATUS,
});

export type CommandName = keyof typeof COMMANDS;

/** `boards` alone runs `boards list`. */
export const GROUP_DEFAULTS: Readonly<Record<string, CommandName>> = Object.freeze({
  boards: "boards list",
  tournaments: "tournaments list",
});

/** Where the CLI connects and who it says it is: taken by every command, before or after its own flags. */
export const CONNECTION = Object.freeze({
  router: text({
    meaning: "the router's address (reads, boards, admin)",
    placeholder: "HOST:PORT",
    unsetMeans: "$LADDER_ROUTER_LISTEN, else 127.0.0.1:50051",
  }),
  ingest: text({
    meaning: "ingest's address (submit, erase, demo)",
    placeholder: "HOST:PORT",
    unsetMeans: "$LADDER_INGEST_LISTEN, else 127.0.0.1:50052",
  }),
  token: text({
    meaning: "the bearer token sent with every call (shows in `ps` and the shell's history: prefer the others)",
    placeholder: "TOKEN",
    unsetMeans: "$LADDER_TOKEN, else the admin token of the credentials file",
  }),
  credentials: text({
    meaning: "a credentials file (JSON array of {name, token, roles}) to take the admin token from",
    placeholder: "FILE",
    unsetMeans: "$LADDER_CREDENTIALS_FILE, else <LADDER_DATA_DIR or .ladder>/credentials.json (written by npm start)",
  }),
});

/** Every table, for the tests and for help. */
export const ALL: readonly Command[] = Object.values(COMMANDS);
