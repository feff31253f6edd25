/**
 * Running a command whose command line parsed: the client's config (addresses, TLS, token:
 * platform/src/client-config.ts, not the services' whole schema), one
 * LadderClient, the command's implementation, and what it printed or the one line of its error
 * (errors.ts). main.ts imports this file only once the command line is valid, so `--help` and
 * usage errors never load gRPC, the generated code or the config schema.
 *
 * Calls go through the client library: a 10 s deadline (status: 15 s, rebuild and watch: none),
 * reads retried on UNAVAILABLE, a submit retried only when it has --event-id.
 */
import { LadderClient, type ServiceSet } from "@ladder/client";
import { loadClientConfig } from "@ladder/platform/client-config";
import { tokenFromFile } from "@ladder/platform/credentials-file";
import { boardsCreate, boardsDelete, boardsGet, boardsList, boardsUpdate, closes } from "./boards.js";
import type { CommandLine } from "./command-line.js";
import type { RunContext } from "./context.js";
import { describeError, type ErrorContext } from "./errors.js";
import type { Values } from "./flags.js";
import { approx, around, at, count, histogram, periods, rank, ranks, standing, top } from "./reads.js";
import { rebuild, rebuilds } from "./rebuild.js";
import { placement, reshard } from "./reshard.js";
import { status } from "./status.js";
import type { COMMANDS, CommandName } from "./tables/index.js";
import { watch } from "./watch.js";
import { demo, erase, submit } from "./writes.js";
import { audit, deleteEntry, hide, hideAbove, unhide, wipe } from "./moderation.js";
import { exportPlayer } from "./export.js";
import { tournamentsCreate, tournamentsGet, tournamentsJoin, tournamentsList } from "./tournaments.js";
import { leaguesCreate, leaguesGet, leaguesStanding } from "./leagues.js";
import { teamsCreate, teamsGet, teamsSet } from "./teams.js";

type Implementation<N extends CommandName> = (c: ServiceSet, o: Values<(typeof COMMANDS)[N]["flags"]>, ctx: RunContext) => Promise<string>;

/** Every command's implementation: a command of the tables without one does not compile. */
const IMPLEMENTATIONS: { readonly [N in CommandName]: Implementation<N> } = {
  submit,
  erase,
  demo,
  top,
  rank,
  around,
  ranks,
  standing,
  count,
  at,
  histogram,
  approx,
  periods,
  watch,
  "boards list": boardsList,
  "boards get": boardsGet,
  "boards create": boardsCreate,
  "boards update": boardsUpdate,
  "boards delete": boardsDelete,
  closes,
  "tournaments list": tournamentsList,
  "tournaments get": tournamentsGet,
  "tournaments create": tournamentsCreate,
  "tournaments join": tournamentsJoin,
  "leagues standing": leaguesStanding,
  "leagues get": leaguesGet,
  "leagues create": leaguesCreate,
  "teams get": teamsGet,
  "teams set": teamsSet,
  "teams create": teamsCreate,
  hide,
  unhide,
  "delete-entry": deleteEntry,
  wipe,
  "hide-above": hideAbove,
  audit,
  export: exportPlayer,
  rebuild,
  rebuilds,
  reshard,
  placement,
  status,
};

/** Runs the command, prints its answer (stdout) or its error (one line on stderr); the exit status. */
export async function run(
  line: Extract<CommandLine, { kind: "run" }>,
  env: NodeJS.ProcessEnv,
  service: ErrorContext["service"],
): Promise<number> {
  let client: LadderClient | undefined;
  let errors: ErrorContext | undefined;
  try {
    const config = loadClientConfig(env);
    const { connection: flags } = line;
    const credentialsFile = flags.credentials ?? config.clientCredentialsFile;
    // the token: --token, else LADDER_TOKEN, else the admin token of the credentials file (read only then)
    const given = flags.token ?? config.clientToken;
    const token = given ?? tokenFromFile(credentialsFile, "admin");
    const tokenSource =
      flags.token !== undefined ? "--token" : given !== undefined ? "LADDER_TOKEN" : token !== undefined ? credentialsFile : undefined;
    const addresses = { router: flags.router ?? config.routerListen, ingest: flags.ingest ?? config.ingestListen };
    errors = { service, addresses, tokenSource, credentialsFile };
    client = new LadderClient({
      ...addresses,
      token,
      // TLS when a CA is configured (LADDER_TLS_CA_FILE) or the servers use TLS (system CAs), else plaintext
      tls: config.tlsCaFile ? { caFile: config.tlsCaFile } : config.serversUseTls,
      // the CLI writes what it is told: an update has an event id only with --event-id (and is retried only then)
      assignEventIds: false,
    });
    const implementation = IMPLEMENTATIONS[line.name] as Implementation<CommandName>;
    console.log(await implementation(client, line.values as never, { errors, launcherStateFile: config.launcherStateFile }));
    return 0;
  } catch (err) {
    const { line: message, exitCode } = describeError(err, errors);
    console.error(`ladder: ${message}`);
    return exitCode;
  } finally {
    client?.close();
  }
}
