/**
 * ladder CLI: talk to a running cluster.
 *
 *   npm run cli -- submit --board global --player alice --value 1200 [--op set|inc|dec|best|default] [--ts <unix ms>] [--event-id id]
 *                     [--also division:gold,... (more boards, same step)] [--leave division:silver (removed in that step)]
 *                     [--metadata '{"name":"Alice"}' (kept with the entry)] [--report-ranks yes (rank before -> after)]
 *   npm run cli -- erase  --player alice [--boards global,daily]     (every board without --boards)
 *   npm run cli -- top    --board global [--limit 10] [--offset 0]
 *   npm run cli -- rank   --board global --player alice
 *   npm run cli -- around --board global --player alice [--radius 5]
 *   npm run cli -- ranks  --board global --players alice,bob,carol     (ranks, and ranks among them)
 *   npm run cli -- standing --player alice --boards global,daily@2026-11-30,daily~7d
 *   npm run cli -- count  --board global [--min 100] [--max 200]
 *   npm run cli -- at     --board global --rank 1000 | --top 10       (the entry at a rank, at the top 10%)
 *   npm run cli -- histogram --board arena                            (a board created with --histogram 10,20,...)
 *   npm run cli -- approx --board arena --score 1250 | --player alice  (the rank from the histogram, with its bounds)
 *   top takes --cursor C (a page's next/previous cursor) to page at any depth; top, rank, ranks and
 *   standing take --mode competition|dense (tied ranks)
 *   npm run cli -- demo   [--board demo] [--players 5000]
 *   npm run cli -- rebuild [--shard shard-1,shard-2] [--view audit-name [--as-of-ts <unix ms>]]
 *   npm run cli -- rebuilds [--shard shard-1,shard-2]       (the rebuilds running now)
 *   npm run cli -- reshard --add shard-3=redis://127.0.0.1:7004 | --remove shard-1   (shards added or removed online)
 *   npm run cli -- placement                                (the placement's epoch, shards and slots)
 *   npm run cli -- watch --board global [--limit 10] | --player alice [--top-k 10]  [--interval-ms 250]
 *                     (push: the top, or a player's rank and what happened, as they change; Ctrl-C stops)
 *   npm run cli -- status [--shard shard-1,shard-2]         (each shard's readiness, lag, size, Redis nodes; Kafka;
 *                     and, beside a local cluster, the processes its launcher supervises: status.ts)
 *   npm run cli -- boards list [--prefix P] | get --board B | create --board B [--order higher|lower]
 *                     [--tie earliest|latest|id] [--min N --max N] [--resolution-ms N] [--default-op set|inc|dec|best]
 *                     [--period daily|weekly|monthly|cron [--cron EXPR] [--zone IANA] [--keep N]
 *                     [--windows NAME:PERIODS:sum|best,...]] [--allow-override yes|no] [--max-metadata BYTES] [--histogram B1,B2,...]
 *                     | update --board B [--default-op ...] [--allow-override yes|no] [--max-metadata BYTES] | delete --board B
 *
 * Ctrl-C during `rebuild` cancels it: the server stops it, deletes what it wrote and releases the
 * shard; the CLI waits for that (20 s at most), says so, and exits with 130.
 *
 * top, rank and around take --view NAME to read an audit view, and --period ID a period of a board with
 * periods (default: the current one), --window NAME a window of it ending in that period; `periods
 * --board B` lists the periods a board keeps.
 *
 * Calls go through the client library (@ladder/client): a 10 s deadline (status: 15 s, rebuild: none),
 * reads retried on UNAVAILABLE, a submit retried only when it has --event-id.
 *
 * --router host:port and --ingest host:port override LADDER_ROUTER_LISTEN / LADDER_INGEST_LISTEN.
 * The bearer token: --token, else LADDER_TOKEN, else the admin token of a credentials file
 * (a JSON array of {name, token, roles}): --credentials FILE, else LADDER_CREDENTIALS_FILE, else the
 * local cluster's own file, <LADDER_DATA_DIR or .ladder>/credentials.json. The CLI knows nothing else
 * of the local cluster but its launcher's state file (<data dir>/launcher-state.json), which `status`
 * shows when it is there: pointed at a production cluster it needs only addresses and a token.
 */
import { parseArgs } from "node:util";
import { LadderClient } from "@ladder/client";
import { loadConfig } from "@ladder/platform/config";
import { tokenFromFile } from "@ladder/platform/credentials-file";
import * as commands from "./commands.js";
import { STATUS_CONTEXT } from "./status.js";

const USAGE = "usage: npm run cli -- <submit|top|rank|ranks|standing|count|at|histogram|approx|around|demo|rebuild|rebuilds|reshard|placement|watch|boards|periods|erase|status> [options]   (see cli/src/main.ts)";
const config = loadConfig(process.env);
const { positionals, values } = parseCommandLine();
const command = positionals[0] as keyof typeof commands | undefined;
if (!command || !(command in commands)) {
  console.error(USAGE);
  process.exit(2);
}
const client = new LadderClient({
  router: values.router ?? config.routerListen,
  ingest: values.ingest ?? config.ingestListen,
  token: values.token ?? config.clientToken ?? tokenFromFile(values.credentials ?? config.clientCredentialsFile, "admin"),
  // TLS when a CA is configured (LADDER_TLS_CA_FILE) or the servers use TLS (system CAs), else plaintext
  tls: config.tlsCaFile ? { caFile: config.tlsCaFile } : config.tls !== undefined,
  // the CLI writes what it is told: an update has an event id only with --event-id (and is retried only then)
  assignEventIds: false,
});
try {
  const context = { [STATUS_CONTEXT.router]: values.router ?? config.routerListen, [STATUS_CONTEXT.stateFile]: config.launcherStateFile };
  console.log(await commands[command](client, { ...values, sub: positionals[1], ...context }));
} catch (err) {
  const e = err as { code?: number; details?: string; message: string; exitCode?: number };
  if (e.exitCode !== undefined) console.error(e.message); // a rebuild cancelled with Ctrl-C: not an error of the cluster
  else console.error(e.details ? `error (gRPC code ${e.code}): ${e.details}` : `error: ${e.message}`);
  process.exitCode = e.exitCode ?? 1;
} finally {
  client.close();
}

/** The command line; an unknown option or --help prints the usage (exit status 2), not a stack. */
function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: Object.fromEntries(
        ["board", "player", "value", "op", "ts", "event-id", "limit", "offset", "radius", "players", "router", "ingest", "token", "view", "shard", "as-of-ts", "credentials", "prefix", "order", "tie", "min", "max", "resolution-ms", "default-op", "allow-override", "period", "zone", "cron", "keep", "also", "leave", "boards", "window", "windows", "metadata", "max-metadata", "cursor", "mode", "rank", "top", "report-ranks", "score", "histogram", "add", "remove", "top-k", "interval-ms"].map((n) => [n, { type: "string" as const }]),
      ),
    });
  } catch (err) {
    console.error(`${(err as Error).message.split(". ")[0]}\n${USAGE}`);
    process.exit(2);
  }
}
