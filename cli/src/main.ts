/**
 * ladder CLI: talk to a running cluster.
 *
 *   npm run cli -- submit --board global --player alice --value 1200 [--op set|inc|best] [--ts <unix ms>] [--event-id id]
 *   npm run cli -- top    --board global [--limit 10] [--offset 0]
 *   npm run cli -- rank   --board global --player alice
 *   npm run cli -- around --board global --player alice [--radius 5]
 *   npm run cli -- demo   [--board demo] [--players 5000]
 *   npm run cli -- rebuild [--shard shard-1,shard-2] [--view audit-name [--as-of-ts <unix ms>]]
 *
 * top, rank and around take --view NAME to read an audit view.
 *
 * --router host:port and --ingest host:port override LADDER_ROUTER_LISTEN / LADDER_INGEST_LISTEN.
 * --token (or LADDER_TOKEN) is the bearer token; by default the local cluster's admin token from
 * .ladder/credentials.json (LADDER_DATA_DIR).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../../common/src/config.js";
import { createClient } from "../../common/src/grpc-adapter.js";
import { AdminService } from "../../proto/gen/leaderboard/v1/admin_pb.js";
import { IngestService } from "../../proto/gen/leaderboard/v1/ingest_pb.js";
import { LeaderboardService } from "../../proto/gen/leaderboard/v1/leaderboard_pb.js";
import { clientCredentials } from "../../common/src/tls.js";
import { localAdminToken } from "../../deploy/local/src/credentials.js";
import { loadLocalConfig } from "../../deploy/local/src/local-config.js";
import * as commands from "./commands.js";

const config = loadConfig(process.env);
const local = loadLocalConfig(process.env, process.cwd());
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: Object.fromEntries(
    ["board", "player", "value", "op", "ts", "event-id", "limit", "offset", "radius", "players", "router", "ingest", "token", "view", "shard", "as-of-ts"].map((n) => [n, { type: "string" as const }]),
  ),
});
const command = positionals[0] as keyof typeof commands | undefined;
if (!command || !(command in commands)) {
  console.error("usage: npm run cli -- <submit|top|rank|around|demo|rebuild> [options]   (see cli/src/main.ts)");
  process.exit(2);
}
const token = values.token ?? config.clientToken ?? localAdminToken(local.dataDir);
const credentials = clientCredentials(config);
const clients = {
  ingest: createClient(IngestService, values.ingest ?? config.ingestListen, credentials, {}, token),
  router: createClient(LeaderboardService, values.router ?? config.routerListen, credentials, {}, token),
  admin: createClient(AdminService, values.router ?? config.routerListen, credentials, {}, token),
};
try {
  console.log(await commands[command](clients, values));
} catch (err) {
  const e = err as { code?: number; details?: string; message: string };
  console.error(e.details ? `error (gRPC code ${e.code}): ${e.details}` : `error: ${e.message}`);
  process.exitCode = 1;
} finally {
  clients.ingest.close();
  clients.router.close();
  clients.admin.close();
}
