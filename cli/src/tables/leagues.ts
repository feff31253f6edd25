/**
 * The tables of `leagues`: boards whose players are placed each period into cohorts, in tiers, with
 * promotion and relegation at each close (docs/leagues.md). `create` defines the board through the
 * router; `standing` and `get` read. Writes go through `submit` (with --bracket in a league with
 * brackets); a cohort is read by every read command as its period, --period "<period>/<cohort>".
 */
import { command } from "../command-table.js";
import { integer, oneOf, shaped, text } from "../flags.js";
import { BOARD, PLAYER } from "./shared.js";
import { OPERATIONS } from "./writes.js";

const PERIOD = text({
  meaning: "the league's period (as `periods` names it), without a cohort",
  placeholder: "PERIOD",
  unsetMeans: "the current period",
});

export const LEAGUES_CREATE = command({
  name: "leagues create",
  service: "router",
  summary: "define a league: cohorts of at most --cohort players each period, in tiers, promoted and relegated at each close",
  about:
    "Each period, a player's first write places it in the cohort being filled of its tier (tier 0 for a new player), by arrival; at each close the top --promote of every cohort move one tier up, the last --relegate one tier down. Periods close --close-grace after their end.",
  flags: {
    board: BOARD,
    period: oneOf({ meaning: "when cohorts start over", choices: ["daily", "weekly", "monthly", "cron"], default: "weekly" }),
    cron: text({
      meaning: "with --period cron: when periods start, 5 fields (or 6, seconds first)",
      placeholder: "EXPR",
      unsetMeans: "none",
    }),
    zone: text({ meaning: "the periods' IANA time zone (Europe/Paris)", placeholder: "IANA", unsetMeans: "UTC" }),
    keep: integer({
      meaning: "past periods kept besides the current one (at least 1: the close reads the period after its end)",
      default: "1",
      min: 1,
      max: 1000,
    }),
    cohort: integer({ meaning: "the most players of one cohort", min: 2, max: 1000, required: true, placeholder: "N" }),
    tiers: integer({ meaning: "tiers, 0 the lowest (where new players start)", min: 1, max: 50, default: "1", placeholder: "N" }),
    promote: integer({ meaning: "ranks of each cohort moved one tier up at the close", min: 0, max: 1000, default: "0", placeholder: "N" }),
    relegate: integer({
      meaning: "last ranks of each cohort moved one tier down at the close",
      min: 0,
      max: 1000,
      default: "0",
      placeholder: "N",
    }),
    brackets: integer({
      meaning: "skill brackets a first write names (submit --bracket), 0 for none",
      min: 0,
      max: 100,
      default: "0",
      placeholder: "N",
    }),
    "close-grace": shaped({
      meaning: "how long after a period's end late writes (timestamped before it) still count",
      pattern: /^\d{1,7}(ms|s|m|h|d)$/,
      shape: "N(ms|s|m|h|d)",
      default: "0s",
    }),
    "default-op": oneOf({
      meaning: "the operation of a write that names none (--op default)",
      choices: OPERATIONS.filter((op) => op !== "default"),
      default: "inc",
      placeholder: "OP",
    }),
    order: oneOf({ meaning: "which scores are better", choices: ["higher", "lower"], default: "higher" }),
  },
  example: "leagues create --board arena --period weekly --cohort 30 --tiers 5 --promote 5 --relegate 5",
});

export const LEAGUES_STANDING = command({
  name: "leagues standing",
  service: "router",
  summary: "a player's cohort of a league: its tier, every entry with its exact rank, and the zones of the close",
  flags: { board: BOARD, player: PLAYER, period: PERIOD },
  example: "leagues standing --board arena --player alice",
});

export const LEAGUES_GET = command({
  name: "leagues get",
  service: "router",
  summary: "a league's period: players and cohorts per tier (and bracket), and whether its close is settled",
  flags: { board: BOARD, period: PERIOD },
  example: "leagues get --board arena",
});
