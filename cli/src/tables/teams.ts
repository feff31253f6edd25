/**
 * The tables of `teams`: boards whose entries are teams kept from their members' points on another
 * board (docs/teams.md). `create` defines the board through the router; `set` goes to ingest;
 * `get` reads. The team board itself is read by every read command (top, rank, around...).
 */
import { command } from "../command-table.js";
import { bigInteger, integer, oneOf, text } from "../flags.js";
import { BOARD, PLAYER } from "./shared.js";

const TEAM = text({ meaning: "the team's id (the rules of a player id)", required: true, placeholder: "T" });

export const TEAMS_CREATE = command({
  name: "teams create",
  service: "router",
  summary: "define a team board: its teams' points kept from their members' points on --source",
  about:
    "Each team's points are the sum of its members' points on the source board (--combine sum), or of its best --best members' (--combine best). Members join and leave with `teams set`; a router's team deriver carries every change to the teams, a moment later.",
  flags: {
    board: BOARD,
    source: text({ meaning: "the board whose entries are the members' points (defined, all-time)", required: true, placeholder: "B" }),
    combine: oneOf({ meaning: "how a team's points are kept from its members'", choices: ["sum", "best"], default: "sum" }),
    best: integer({ meaning: "with --combine best: how many members count", min: 0, max: 1000, default: "0", placeholder: "N" }),
    max: bigInteger({ meaning: "the most points a team holds (its sum saturates there)", default: "2147483647", placeholder: "N" }),
    order: oneOf({ meaning: "which points are better", choices: ["higher", "lower"], default: "higher" }),
  },
  example: "teams create --board clans --source global",
});

export const TEAMS_SET = command({
  name: "teams set",
  service: "ingest",
  summary: "make a player a member of a team of a team board (--team '' for none)",
  flags: {
    board: BOARD,
    player: PLAYER,
    team: text({ meaning: "the team it joins", placeholder: "T", unsetMeans: "none: the player leaves its team" }),
  },
  example: "teams set --board clans --player alice --team red",
});

export const TEAMS_GET = command({
  name: "teams get",
  service: "router",
  summary: "a team's entry with its exact rank, and its members with their points",
  flags: { board: BOARD, team: TEAM },
  example: "teams get --board clans --team red",
});
