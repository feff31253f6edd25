/**
 * ladder CLI: talk to a running cluster.
 *
 *   npm run cli -- submit --board global --player alice --value 1200 [--op set|inc|dec|best|default] [--ts <unix ms>] [--event-id id]
 *                     [--also division:gold,... (more boards, same step)] [--leave division:silver (removed in that step)]
 *   npm run cli -- erase  --player alice [--boards global,daily]     (every board without --boards)
 *   npm run cli -- top    --board global [--limit 10] [--offset 0]
 *   npm run cli -- rank   --board global --player alice
 *   npm run cli -- around --board global --player alice [--radius 5]
 *   npm run cli -- demo   [--board demo] [--players 5000]
 *   npm run cli -- rebuild [--shard shard-1,shard-2] [--view audit-name [--as-of-ts <unix ms>]]
 *   npm run cli -- rebuilds [--shard shard-1,shard-2]       (the rebuilds running now)
 *   npm run cli -- boards list [--prefix P] | get --board B | create --board B [--order higher|lower]
 *                     [--tie earliest|latest|id] [--min N --max N] [--resolution-ms N] [--default-op set|inc|dec|best]
 *                     [--period daily|weekly|monthly|cron [--cron EXPR] [--zone IANA] [--keep N]]
 *                     [--allow-override yes|no] | update --board B [--default-op ...] [--allow-override yes|no]
 *
 * Ctrl-C during `rebuild` cancels it: the server stops it, deletes what it wrote and releases the
 * shard; the CLI waits for that (20 s at most), says so, and exits with 130.
 *
 * top, rank and around take --view NAME to read an audit view, and --period ID a period of a board with
 * periods (default: the current one); `periods --board B` lists the periods a board keeps.
 *
 * --router host:port and --ingest host:port override LADDER_ROUTER_LISTEN / LADDER_INGEST_LISTEN.
 * The bearer token: --token, else LADDER_TOKEN, else the admin token of a credentials file
 * (a JSON array of {name, token, roles}): --credentials FILE, else LADDER_CREDENTIALS_FILE, else the
 * local cluster's own file, <LADDER_DATA_DIR or .ladder>/credentials.json. The CLI knows nothing else
 * of the local cluster: pointed at a production cluster it needs only addresses and a token.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "@ladder/common/config";
import { createClient } from "@ladder/common/grpc-adapter";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { clientCredentials } from "@ladder/common/tls";
import { tokenFromFile } from "@ladder/common/credentials-file";
import * as commands from "./commands.js";

const config = loadConfig(process.env);
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: Object.fromEntries(
    ["board", "player", "value", "op", "ts", "event-id", "limit", "offset", "radius", "players", "router", "ingest", "token", "view", "shard", "as-of-ts", "credentials", "prefix", "order", "tie", "min", "max", "resolution-ms", "default-op", "allow-override", "period", "zone", "cron", "keep", "also", "leave", "boards"].map((n) => [n, { type: "string" as const }]),
  ),
});
const command = positionals[0] as keyof typeof commands | undefined;
if (!command || !(command in commands)) {
  console.error("usage: npm run cli -- <submit|top|rank|around|demo|rebuild|rebuilds|boards|periods|erase> [options]   (see cli/src/main.ts)");
  process.exit(2);
}
const token = values.token ?? config.clientToken ?? tokenFromFile(values.credentials ?? config.clientCredentialsFile, "admin");
const credentials = clientCredentials(config);
const clients = {
  ingest: createClient(IngestService, values.ingest ?? config.ingestListen, credentials, {}, token),
  router: createClient(LeaderboardService, values.router ?? config.routerListen, credentials, {}, token),
  admin: createClient(AdminService, values.router ?? config.routerListen, credentials, {}, token),
};
try {
  console.log(await commands[command](clients, { ...values, sub: positionals[1] }));
} catch (err) {
  const e = err as { code?: number; details?: string; message: string; exitCode?: number };
  if (e.exitCode !== undefined) console.error(e.message); // a rebuild cancelled with Ctrl-C: not an error of the cluster
  else console.error(e.details ? `error (gRPC code ${e.code}): ${e.details}` : `error: ${e.message}`);
  process.exitCode = e.exitCode ?? 1;
} finally {
  clients.ingest.close();
  clients.router.close();
  clients.admin.close();
}
