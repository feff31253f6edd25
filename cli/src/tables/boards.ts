/**
 * The tables of `boards`: board definitions (AdminService) through the router.
 */
import { command } from "../command-table.js";
import { bigInteger, integer, list, oneOf, shaped, text, yesNo } from "../flags.js";
import { BOARD } from "./shared.js";
import { OPERATIONS } from "./writes.js";

/** The default operations a board may have (not `default`: that names the board's own). */
const DEFAULT_OPS = OPERATIONS.filter((op) => op !== "default");

/** A board's write quota (BoardDefinition.quota): updates per second and burst, per player and per token. */
function quotaFlags(unsetMeans?: string) {
  const rate = (who: string) =>
    integer({
      meaning: `updates per second one ${who} may make to the board, sustained, in each ingest process (0: no limit of the board's)`,
      min: 0,
      max: 1_000_000,
      placeholder: "N",
      ...(unsetMeans ? { unsetMeans } : { default: "0" }),
    });
  const burst = (who: string, rateFlag: string) =>
    integer({
      meaning: `updates one ${who} may make to the board at once above --${rateFlag} (0: --${rateFlag})`,
      min: 0,
      max: 1_000_000,
      placeholder: "N",
      ...(unsetMeans ? { unsetMeans } : { default: "0" }),
    });
  return {
    "player-rate": rate("player"),
    "player-burst": burst("player", "player-rate"),
    "token-rate": rate("token (the caller's grant)"),
    "token-burst": burst("token", "token-rate"),
  };
}

export const BOARDS_LIST = command({
  name: "boards list",
  service: "router",
  summary: "the boards defined (also `boards` alone)",
  flags: { prefix: text({ meaning: "only the boards whose name starts with this", placeholder: "P", unsetMeans: "every board" }) },
  example: "boards list --prefix division:",
});

export const BOARDS_GET = command({
  name: "boards get",
  service: "router",
  summary: "one board's definition",
  flags: { board: BOARD },
  example: "boards get --board speedrun",
});

export const BOARDS_CREATE = command({
  name: "boards create",
  service: "router",
  summary: "define a board: order, ties, points range, periods, windows, histogram",
  about:
    "A board without a definition takes the cluster's defaults (higher is better, earliest first, points 0..2147483647, 1 min resolution, all-time). The rules cannot change later; the default operation, --allow-override, --max-metadata, the write quota (--player-rate, --token-rate and their bursts) and --ceiling can (boards update).",
  flags: {
    board: BOARD,
    order: oneOf({ meaning: "which scores are better", choices: ["higher", "lower"], default: "higher" }),
    tie: oneOf({
      meaning: "equal scores: the earliest reached first, the latest first, or by player id",
      choices: ["earliest", "latest", "id"],
      default: "earliest",
    }),
    min: bigInteger({ meaning: "the lowest points a player can hold", unsetMeans: "0 (with --max unset too: the range 0..2147483647)" }),
    max: bigInteger({ meaning: "the highest points a player can hold", unsetMeans: "0 (with --min unset too: the range 0..2147483647)" }),
    "resolution-ms": integer({
      meaning: "the tie rule's time unit: times within one unit tie and fall to player id",
      min: 0,
      unsetMeans: "60000 (1 min)",
    }),
    period: oneOf({
      meaning: "when the board starts over",
      choices: ["none", "daily", "weekly", "monthly", "cron", "season"],
      default: "none",
      placeholder: "PERIOD",
    }),
    cron: text({
      meaning: "with --period cron: when periods start, 5 fields (or 6, seconds first)",
      placeholder: "EXPR",
      unsetMeans: "none",
    }),
    "season-start": shaped({
      meaning: "with --period season: the day season 1 starts (at midnight in --zone)",
      pattern: /^\d{4}-\d{2}-\d{2}$/,
      shape: "YYYY-MM-DD",
      unsetMeans: "none",
    }),
    "season-length": shaped({
      meaning: "with --period season: how long each season lasts, in days or weeks",
      pattern: /^[1-9]\d{0,3}[dw]$/,
      shape: "Nd|Nw",
      unsetMeans: "none",
    }),
    "season-gap": shaped({
      meaning: "with --period season: the days or weeks without a season between two seasons",
      pattern: /^\d{1,4}[dw]$/,
      shape: "Nd|Nw",
      default: "0d",
    }),
    "close-grace": shaped({
      meaning: "close each period this long after its end (its standings then final; writes into it refused)",
      pattern: /^\d{1,7}(ms|s|m|h|d)$/,
      shape: "N(ms|s|m|h|d)",
      unsetMeans: "periods never close",
    }),
    "close-top": integer({
      meaning: "with --close-grace: entries of the final standings each close event carries (0: 10)",
      min: 0,
      max: 1000,
      default: "0",
      placeholder: "K",
    }),
    rewards: list({
      meaning: "with --close-grace: rewards by final rank, resolved into each close event (the first range given wins a rank)",
      item: shaped({
        meaning: "",
        pattern: /^[A-Za-z0-9_.:-]{1,64}:(\d+(-\d+)?|top\d+(\.\d+)?%)$/,
        shape: "REWARD:RANK|REWARD:FROM-TO|REWARD:topP%",
      }),
      unsetMeans: "none",
    }),
    zone: text({ meaning: "the periods' IANA time zone (Europe/Paris)", placeholder: "IANA", unsetMeans: "UTC" }),
    keep: integer({ meaning: "past periods kept besides the current one", default: "0", min: 0, max: 1000 }),
    windows: list({
      meaning: "windows over the last PERIODS periods, summed or best of",
      item: shaped({ meaning: "", pattern: /^[^:,]+:\d+:(sum|best)$/, shape: "NAME:PERIODS:sum|best" }),
      unsetMeans: "none",
    }),
    "default-op": oneOf({
      meaning: "the operation of a write that names none (--op default)",
      choices: DEFAULT_OPS,
      default: "best",
      placeholder: "OP",
    }),
    "allow-override": yesNo({ meaning: "whether a write may name another operation than the default", default: "no" }),
    "max-metadata": integer({
      meaning: "the most bytes of metadata a write may keep with an entry (0: none)",
      default: "0",
      min: 0,
      max: 4096,
      placeholder: "BYTES",
    }),
    ...quotaFlags(),
    ceiling: bigInteger({
      meaning: "the most points one write may bring, on a higher-is-better board (0: no ceiling; hide-above hides the entries above it)",
      default: "0",
    }),
    "keep-top": integer({
      meaning: "keep only the best N entries of each period (the router trims past N + the margin; SET and BEST writes only)",
      default: "0",
      min: 0,
      max: 1_000_000,
      placeholder: "N",
    }),
    "keep-margin": integer({
      meaning: "with --keep-top: entries kept beyond the top until the next trim, backfilling removals (0: as --keep-top)",
      default: "0",
      min: 0,
      max: 1_000_000,
      placeholder: "M",
    }),
    "expire-inactive": shaped({
      meaning: "remove the players whose latest event is older than this (by event time), at least 1m",
      pattern: /^\d{1,9}(ms|s|m|h|d)$/,
      shape: "N(ms|s|m|h|d)",
      unsetMeans: "never",
    }),
    columns: list({
      meaning:
        "2 to 4 sort columns instead of one score, each higher or lower first (docs/columns.md); writes give their values with submit --columns, --order, --min, --max and --ceiling do not apply",
      item: shaped({ meaning: "", pattern: /^[a-z0-9_]{1,32}:(higher|lower)$/, shape: "NAME:higher|lower" }),
      unsetMeans: "one score",
    }),
    histogram: list({
      meaning: "keep a score histogram with buckets starting at these points, ascending (histogram, approx)",
      item: bigInteger({ meaning: "" }),
      unsetMeans: "no histogram",
    }),
  },
  example: "boards create --board ranked --period season --season-start 2026-12-07 --season-length 4w --season-gap 1w --keep 3",
});

export const BOARDS_UPDATE = command({
  name: "boards update",
  service: "router",
  summary: "change a board's default operation, --allow-override, --max-metadata, write quota or --ceiling",
  flags: {
    board: BOARD,
    "default-op": oneOf({
      meaning: "the operation of a write that names none",
      choices: DEFAULT_OPS,
      unsetMeans: "as it is",
      placeholder: "OP",
    }),
    "allow-override": yesNo({ meaning: "whether a write may name another operation than the default", unsetMeans: "as it is" }),
    "max-metadata": integer({
      meaning: "the most bytes of metadata a write may keep with an entry (0: none)",
      min: 0,
      max: 4096,
      placeholder: "BYTES",
      unsetMeans: "as it is",
    }),
    ...quotaFlags("as it is"),
    ceiling: bigInteger({
      meaning: "the most points one write may bring, on a higher-is-better board (0: no ceiling)",
      unsetMeans: "as it is",
    }),
  },
  example: "boards update --board speedrun --allow-override yes",
});

export const BOARDS_DELETE = command({
  name: "boards delete",
  service: "router",
  summary: "delete a board: its definition, then its entries on every shard",
  flags: { board: BOARD },
  example: "boards delete --board arena",
});

export const CLOSES = command({
  name: "closes",
  service: "router",
  summary: "a board's close events: each closed period's size, top entries and checksum",
  flags: { board: BOARD },
  example: "closes --board weekly-cup",
});
