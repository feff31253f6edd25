/**
 * What a command is, as data: its name, a one-line summary, its flags (flags.ts), which of them
 * go together, and one example. The tables of every command (tables/*.ts) are values of this
 * type; the command line is parsed by them (command-line.ts) and help is written from them
 * (help.ts). A command's implementation takes `Values<typeof ITS_TABLE.flags>`: the flags it
 * reads are the flags its table lists, typed.
 */
import type { Flags } from "./flags.js";

export interface Command<F extends Flags = Flags> {
  /** As typed: "top", or a group and a subcommand: "boards create". */
  readonly name: string;
  /** One line for the list of commands: what it does, lower case, no final stop. */
  readonly summary: string;
  /** More, for the command's help: what a user needs to know beyond the flags (sentences). */
  readonly about?: string;
  readonly flags: F;
  /** Sets of flags of which exactly one must be given (`at`: --rank or --top). */
  readonly exactlyOne?: readonly (readonly string[])[];
  /** Sets of flags of which at least one must be given (`reshard`: --add, --remove or both). */
  readonly atLeastOne?: readonly (readonly string[])[];
  /** An example: what follows `npm run -s cli --`. */
  readonly example: string;
  /** The service it calls, for error messages: "router" (LeaderboardService, AdminService) or "ingest". */
  readonly service: "router" | "ingest";
}

type FlagSets<F> = readonly (readonly (keyof F & string)[])[];

/** A command table, typed by its flags (the flags' value types reach the implementation); its sets name its own flags. */
export const command = <const F extends Flags>(c: Command<F> & { exactlyOne?: FlagSets<F>; atLeastOne?: FlagSets<F> }): Command<F> =>
  Object.freeze(c);

/** How the CLI is run, at the head of every usage line. */
export const INVOCATION = "npm run -s cli --";
