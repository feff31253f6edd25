/**
 * Authentication and roles. Clients never submit their own points: only trusted game servers
 * holding a write token can, and admin rpcs need an admin token. Tokens travel as gRPC metadata
 * `authorization: Bearer <token>` (over TLS when certificates are configured).
 *
 * Tokens come from configuration (LADDER_TOKENS) and are kept only as SHA-256 digests; a token
 * is looked up by its digest, so no comparison leaks how much of a guess was right. Reads are
 * open unless LADDER_READS=token, then they need a token with the read role (write, admin and
 * monitor tokens may read too).
 *
 * The monitor role is the least a dashboard needs: of the admin rpcs it may call only those in
 * MONITOR_RPCS, which read the cluster's shape and change nothing (the gateway's board list and
 * shards' status); every other admin rpc needs the admin role. An admin token may act as monitor.
 *
 *   missing or unknown token  -> UNAUTHENTICATED
 *   known token, wrong role   -> PERMISSION_DENIED
 */
import { hash } from "node:crypto";
import type { Metadata } from "@grpc/grpc-js";
import { LadderError, Code } from "@ladder/model/errors";
import type { Guard } from "./grpc-adapter.js";

export type Role = "read" | "write" | "admin" | "monitor";
export const ROLES: readonly Role[] = ["read", "write", "admin", "monitor"];

/** The AdminService rpcs (by proto name) a monitor token may call: reads that change nothing. */
export const MONITOR_RPCS: ReadonlySet<string> = new Set(["ListBoards", "GetClusterStatus"]);

export interface TokenGrant {
  /** Who holds the token, for logs (never the token itself). */
  readonly name: string;
  readonly token: string;
  readonly roles: readonly Role[];
}

export interface Principal {
  readonly name: string;
  readonly roles: ReadonlySet<Role>;
}

const ANONYMOUS: Principal = { name: "anonymous", roles: new Set() };

/** One call per request: the one-shot `hash` costs about a third of a Hash object's create, update and digest. */
const digest = (token: string) => hash("sha256", token, "hex");

export class Authenticator {
  private readonly byDigest: ReadonlyMap<string, Principal>;

  constructor(
    grants: readonly TokenGrant[],
    private readonly readsOpen: boolean,
  ) {
    this.byDigest = new Map(grants.map((g) => [digest(g.token), { name: g.name, roles: new Set(g.roles) }]));
  }

  /** Who is calling, from the call's metadata; anonymous when there is no token. */
  identify(metadata: Metadata): Principal {
    const header = metadata.get("authorization")[0];
    if (header === undefined) return ANONYMOUS;
    const match = /^Bearer\s+(\S+)$/i.exec(String(header));
    const principal = match ? this.byDigest.get(digest(match[1]!)) : undefined;
    if (!principal) throw new LadderError(Code.UNAUTHENTICATED, "invalid bearer token");
    return principal;
  }

  /** Throws unless the caller may act in `role`. */
  require(metadata: Metadata, role: Role): Principal {
    const principal = this.identify(metadata);
    if (role === "read" && this.readsOpen) return principal;
    if (principal === ANONYMOUS) throw new LadderError(Code.UNAUTHENTICATED, `a bearer token with the ${role} role is required`);
    const allowed =
      role === "read" ? principal.roles.size > 0 : principal.roles.has(role) || (role === "monitor" && principal.roles.has("admin"));
    if (!allowed) throw new LadderError(Code.PERMISSION_DENIED, `token "${principal.name}" lacks the ${role} role`);
    return principal;
  }
}

/** The metadata a client sends with `token`. */
export function bearer(metadata: Metadata, token: string): Metadata {
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

/** A guard that lets a call through only for callers acting in `role`. */
export function requireRole(auth: Authenticator, role: Role): Guard {
  return (_method, ctx) => void auth.require(ctx.metadata, role);
}

/** The AdminService guard: MONITOR_RPCS for monitor (or admin) tokens, every other rpc for admin tokens only. */
export function requireAdmin(auth: Authenticator): Guard {
  return (method, ctx) => void auth.require(ctx.metadata, MONITOR_RPCS.has(method.name) ? "monitor" : "admin");
}
