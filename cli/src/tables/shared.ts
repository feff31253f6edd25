/**
 * Flags that several commands share, defined once so that they mean and read the same everywhere.
 */
import { list, oneOf, text } from "../flags.js";

export const BOARD = text({ meaning: "the board's name", required: true, placeholder: "B" });
export const PLAYER = text({ meaning: "the player's id", required: true, placeholder: "P" });

/** `--view`, `--period`, `--window`: which copy of a board a read reads. */
export const WHERE = {
  view: text({
    meaning: "read this audit view instead of the live board (made by `rebuild --view`)",
    placeholder: "NAME",
    unsetMeans: "the live board",
  }),
  period: text({
    meaning: "the period to read, on a board with periods (`periods --board B` lists them)",
    placeholder: "ID",
    unsetMeans: "the current period",
  }),
  window: text({
    meaning: "a window of the board ending in that period (`boards create --windows`)",
    placeholder: "NAME",
    unsetMeans: "none (the period alone)",
  }),
} as const;

/** `--mode`: how ties rank (Entry.tied_rank). */
export const MODE = oneOf({
  meaning: "how tied players rank, shown as a tied rank (unique: each its own, by the tie rule; competition: 1, 1, 3; dense: 1, 1, 2)",
  placeholder: "MODE",
  choices: ["unique", "competition", "dense"],
  default: "unique",
});

/** Which shards: `--shard shard-1,shard-2`. */
export const shards = (meaning: string) => list({ meaning, placeholder: "ID,...", unsetMeans: "every shard" });
