/**
 * The tables of `tournaments`: boards with members, a size limit and attempts (docs/tournaments.md).
 * `create` defines the board through the router; `join` goes to ingest; `list` and `get` read.
 */
import { command } from "../command-table.js";
import { integer, list, oneOf, shaped, text } from "../flags.js";
import { BOARD } from "./shared.js";
import { OPERATIONS } from "./writes.js";

const CATEGORY = text({
  meaning: "what the tournament is listed under (1 to 64 of A-Z a-z 0-9 _ - . :)",
  placeholder: "C",
  required: true,
});

export const TOURNAMENTS_CREATE = command({
  name: "tournaments create",
  service: "router",
  summary: "define a tournament: a board of one period with members, a size limit and attempts, closed with rewards",
  about:
    "The board's one period, T, runs from --start for --duration; it closes at its end plus --close-grace, with a close event and the --rewards by final rank (closes --board B). With --join yes (the default) only the players who joined may write, at most --max-size of them; each player's writes are counted, at most --max-attempts.",
  flags: {
    board: BOARD,
    category: CATEGORY,
    start: shaped({
      meaning: "when it starts: now, an ISO 8601 instant, or Unix ms",
      pattern: /^(now|\d{1,16}|\d{4}-\d{2}-\d{2}T[0-9:.]+(Z|[+-]\d{2}:\d{2}))$/,
      shape: "now|ISO|MS",
      default: "now",
    }),
    duration: shaped({
      meaning: "how long it lasts",
      pattern: /^\d{1,7}(s|m|h|d)$/,
      shape: "N(s|m|h|d)",
      required: true,
    }),
    join: oneOf({ meaning: "whether players must join before they write", choices: ["yes", "no"], default: "yes" }),
    "max-size": integer({
      meaning: "the most members, with --join yes (0: no limit)",
      min: 0,
      max: 1_000_000,
      default: "0",
      placeholder: "N",
    }),
    "max-attempts": integer({
      meaning: "the most writes each player's entry takes (0: no limit)",
      min: 0,
      max: 1_000_000,
      default: "0",
      placeholder: "N",
    }),
    "default-op": oneOf({
      meaning: "the operation of a write that names none (--op default)",
      choices: OPERATIONS.filter((op) => op !== "default"),
      default: "best",
      placeholder: "OP",
    }),
    order: oneOf({ meaning: "which scores are better", choices: ["higher", "lower"], default: "higher" }),
    "close-grace": shaped({
      meaning: "how long after the end late writes (timestamped before it) still count",
      pattern: /^\d{1,7}(ms|s|m|h|d)$/,
      shape: "N(ms|s|m|h|d)",
      default: "0s",
    }),
    "close-top": integer({
      meaning: "entries of the final standings the close event carries (0: 10)",
      min: 0,
      max: 1000,
      default: "0",
      placeholder: "K",
    }),
    rewards: list({
      meaning: "rewards by final rank, resolved into the close event (the first range given wins a rank)",
      item: shaped({
        meaning: "",
        pattern: /^[A-Za-z0-9_.:-]{1,64}:(\d+(-\d+)?|top\d+(\.\d+)?%)$/,
        shape: "REWARD:RANK|REWARD:FROM-TO|REWARD:topP%",
      }),
      unsetMeans: "none",
    }),
  },
  example: "tournaments create --board cup-1 --category weekend --duration 2h --max-size 100 --max-attempts 3 --default-op inc",
});

export const TOURNAMENTS_JOIN = command({
  name: "tournaments join",
  service: "ingest",
  summary: "join a tournament (refused when it is full or ended)",
  flags: { board: BOARD, player: text({ meaning: "the player joining", required: true, placeholder: "P" }) },
  example: "tournaments join --board cup-1 --player alice",
});

export const TOURNAMENTS_LIST = command({
  name: "tournaments list",
  service: "router",
  summary: "the tournaments not ended of a category, by start (also `tournaments` alone)",
  flags: {
    category: text({ meaning: "only the tournaments of this category", placeholder: "C", unsetMeans: "every category" }),
    "page-size": integer({ meaning: "tournaments per page (0: 20)", min: 0, max: 100, default: "0", placeholder: "N" }),
    page: text({ meaning: "the page after the one that printed this token", placeholder: "TOKEN", unsetMeans: "the first page" }),
  },
  example: "tournaments list --category weekend",
});

export const TOURNAMENTS_GET = command({
  name: "tournaments get",
  service: "router",
  summary: "a tournament's state and members; with --player, its attempts and exact rank",
  flags: {
    board: BOARD,
    player: text({ meaning: "a player whose membership, attempts and standing to show", placeholder: "P", unsetMeans: "none" }),
  },
  example: "tournaments get --board cup-1 --player alice",
});
