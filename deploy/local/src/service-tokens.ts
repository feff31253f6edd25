// Which tokens each service is given: only those it verifies, so that a service's environment holds
// no credential it has no use for.
//
//   router  verifies every caller of LeaderboardService and AdminService; a read accepts any known
//           token (LADDER_READS=token), so it gets every grant
//   ingest  verifies writers only: the grants with the write role, reduced to that role
//   shard   verifies no one and presents nothing: no grant at all
//
// The gateway is no service of this list: it verifies nothing either (the router decides every
// read) and presents only its own monitor token (LADDER_GATEWAY_TOKEN, gateway-service.ts).
//
// What a child inherits (the launcher's own environment, where LADDER_TOKENS may have been set)
// passes through withoutCredentials first, so that nothing reaches a service but what is its own.
import type { TokenGrant } from "@ladder/platform/auth";

export type TokenHolder = "router" | "ingest" | "shard";

/** The grants `holder` is given out of `grants` (see above); never one it does not verify. */
export function grantsFor(holder: TokenHolder, grants: readonly TokenGrant[]): TokenGrant[] {
  switch (holder) {
    case "router":
      return [...grants];
    case "ingest":
      return grants.filter((g) => g.roles.includes("write")).map((g) => ({ ...g, roles: ["write"] }));
    case "shard":
      return [];
  }
}

/** The credentials of the cluster a launcher may have been given in its environment, never inherited. */
export const CREDENTIAL_VARIABLES = [
  "LADDER_TOKENS",
  "LADDER_GATEWAY_TOKEN",
  "LADDER_STREAM_SECRET",
  "LADDER_TOKEN",
  "LADDER_KAFKA_SASL_PASSWORD",
  "LADDER_KAFKA_CONTROL_SASL_PASSWORD",
  "LADDER_REDIS_PASSWORD",
  "LADDER_REDIS_ADMIN_PASSWORD",
  "LADDER_SENTINEL_PASSWORD",
] as const;

/** `env` without CREDENTIAL_VARIABLES: what a child may inherit. */
export function withoutCredentials(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const out = { ...env };
  for (const name of CREDENTIAL_VARIABLES) delete out[name];
  return out;
}

/** LADDER_TOKENS for `holder`: the environment entry, absent when it gets no grant. */
export function tokensEnv(holder: TokenHolder, grants: readonly TokenGrant[]): Record<string, string> {
  const own = grantsFor(holder, grants);
  return own.length ? { LADDER_TOKENS: JSON.stringify(own) } : {};
}
