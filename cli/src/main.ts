/**
 * ladder's command line: `npm run -s cli -- <command> [flags]`; `--help` lists the commands,
 * `<command> --help` a command's flags, their defaults and an example. The commands and their
 * flags are tables (tables/), from which parsing (command-line.ts) and help (help.ts) are made.
 *
 * Exit status: 0 done; 1 the cluster refused or could not be reached; 2 the command line is
 * wrong (one line naming the flag and the rule); 130 a rebuild cancelled with Ctrl-C.
 *
 * This file loads only the tables: the client library, gRPC and the config are imported (run.ts)
 * once the command line is known to be valid, so help and usage errors answer at once.
 *
 * The CLI knows of the local cluster only its credentials file (the token when none is given) and
 * its launcher's state file, which `status` shows when it is there: pointed at a production
 * cluster it needs only addresses and a token.
 */
import { enableCompileCache } from "node:module";
import { parseCommandLine, type CommandLine } from "./command-line.js";
import { describeError } from "./errors.js";
import { COMMANDS } from "./tables/index.js";

// V8's code cache on disk (the system's temp dir, keyed by file and Node version): a call loads ~20 MB of
// JavaScript (gRPC, protobuf and the generated descriptors, zod) and compiles it once, not at every call
enableCompileCache();

let line: CommandLine;
try {
  line = parseCommandLine(process.argv.slice(2));
} catch (err) {
  const { line: message, exitCode } = describeError(err);
  console.error(`ladder: ${message}`);
  process.exit(exitCode);
}
if (line.kind === "help") console.log(line.text);
else {
  const { run } = await import("./run.js");
  process.exitCode = await run(line, process.env, COMMANDS[line.name].service);
}
