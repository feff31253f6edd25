/**
 * A client's part of the configuration: what the CLI reads of the environment (the addresses it
 * calls, its token or credentials file, the CA it trusts, whether the servers serve TLS, and where
 * the local launcher keeps its state), validated and frozen like the rest. Its variables are
 * declared here, once: the services' schema (config.ts) takes these same readers, so both read a
 * variable alike and docs/configuration.md lists each once.
 *
 * Why a part of its own: the whole schema brings the board specs (cron-parser, luxon), the Redis
 * addresses and the building of ~60 readers, about a quarter of a CLI call's CPU; a call needs
 * seven variables.
 */
import { envSchema, envVariables, optional, parseEnv, path, string, type Env } from "./env-schema.js";
import { localCredentialsPath } from "./credentials-file.js";
import { launcherStatePath } from "./launcher-state.js";

/** host:port */
export const LISTEN = /^.+:\d+$/;

/** The local cluster's data dir; the launcher keeps Kafka, Redis and credentials.json there, and a client looks for its credentials there. */
export const LADDER_DATA_DIR = path({
  default: ".ladder",
  description:
    "the local cluster's data dir: Kafka's and Redis's data, `credentials.json`, the launcher's `launcher-state.json` (git-ignored)",
});

/** The readers of the variables a client reads (config.ts lists them among the services' in its own order). */
export const CLIENT_VARIABLES = {
  LADDER_ROUTER_LISTEN: string({ default: "127.0.0.1:50051", pattern: LISTEN, description: "the router's gRPC listen address, host:port" }),
  LADDER_INGEST_LISTEN: string({ default: "127.0.0.1:50052", pattern: LISTEN, description: "ingest's gRPC listen address, host:port" }),
  LADDER_TOKEN: optional({ description: "the token a client (CLI, load tool) sends" }),
  LADDER_CREDENTIALS_FILE: optional({
    unsetMeans: "`<LADDER_DATA_DIR>/credentials.json`",
    description:
      'a client\'s credentials file (JSON grants, the format of `LADDER_TOKENS`, or `{"tokens": [...], "kafka": {...}}`), read when it has no token; a Kafka seed takes its `ingest` login from it',
  }),
  LADDER_DATA_DIR,
  LADDER_TLS_CERT_FILE: optional({
    unsetMeans: "— (plaintext)",
    description: "PEM certificate chain: serve TLS on every gRPC port (with `LADDER_TLS_KEY_FILE`)",
  }),
  LADDER_TLS_CA_FILE: optional({ unsetMeans: "— (system CAs)", description: "PEM CA that clients (CLI, load tool) trust" }),
} as const;

export interface ClientConfig {
  readonly routerListen: string;
  readonly ingestListen: string;
  /** LADDER_TOKEN, when set. */
  readonly clientToken: string | undefined;
  /** The credentials file to take a token from when none is given. */
  readonly clientCredentialsFile: string;
  /** The local launcher's state file (launcher-state.ts). */
  readonly launcherStateFile: string;
  /** The CA to trust (LADDER_TLS_CA_FILE), when set. */
  readonly tlsCaFile: string | undefined;
  /** The servers serve TLS (LADDER_TLS_CERT_FILE is set): trust the system CAs when no CA file is given. */
  readonly serversUseTls: boolean;
}

const clientSchema = envSchema(envVariables(CLIENT_VARIABLES), {
  build: (v): ClientConfig => ({
    routerListen: v.LADDER_ROUTER_LISTEN,
    ingestListen: v.LADDER_INGEST_LISTEN,
    clientToken: v.LADDER_TOKEN,
    clientCredentialsFile: v.LADDER_CREDENTIALS_FILE ?? localCredentialsPath(v.LADDER_DATA_DIR),
    launcherStateFile: launcherStatePath(v.LADDER_DATA_DIR),
    tlsCaFile: v.LADDER_TLS_CA_FILE,
    serversUseTls: v.LADDER_TLS_CERT_FILE !== undefined,
  }),
});

/** Reads, validates and freezes a client's configuration. Throws ConfigError listing every problem. */
export function loadClientConfig(env: Env): ClientConfig {
  return parseEnv(clientSchema, env);
}
