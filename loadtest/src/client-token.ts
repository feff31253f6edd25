/**
 * The bearer token of the load tool and the seeder, found as the CLI finds its own: --token,
 * else LADDER_TOKEN, else the first grant with the write role in a credentials file (--credentials,
 * else LADDER_CREDENTIALS_FILE, else the local cluster's <LADDER_DATA_DIR>/credentials.json, which
 * `npm start` writes). Any role may read; writes need "write". `source` says where the token came
 * from, for the run's log and result file (never the token itself).
 */
import type { Config } from "@ladder/platform/config";
import { tokenFromFile } from "@ladder/platform/credentials-file";

export interface ClientToken {
  token: string | undefined;
  /** "--token", "LADDER_TOKEN", the credentials file's path, or "none". */
  source: string;
}

/** Throws when the credentials file exists but is not one. */
export function clientToken(
  flags: { token?: string; credentials?: string },
  config: Pick<Config, "clientToken" | "clientCredentialsFile">,
): ClientToken {
  if (flags.token !== undefined) return { token: flags.token, source: "--token" };
  if (config.clientToken !== undefined) return { token: config.clientToken, source: "LADDER_TOKEN" };
  const path = flags.credentials ?? config.clientCredentialsFile;
  const token = tokenFromFile(path, "write");
  return token === undefined ? { token: undefined, source: "none" } : { token, source: path };
}
