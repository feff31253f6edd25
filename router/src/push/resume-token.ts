/**
 * Resume tokens of WatchTop and WatchPlayer: what a stream's message showed, signed, so that a
 * stream resumes only from a token a router of this cluster gave for that same stream.
 *
 *   token   = payload "." mac
 *   payload = base64url(JSON {s, h} or {s, r, k}): the message's sequence number and what it
 *             showed (a top: the hash of its entries; a player: its rank and sort key)
 *   mac     = base64url(HMAC-SHA-256(secret, scope "\n" payload))
 *   scope   = JSON of the stream: its rpc, board, period, window (and the player for WatchPlayer)
 *
 * The scope is not in the token but under its MAC: a token of another board, period, window or
 * player fails the check like an altered, truncated or made-up one. The secret is the cluster's
 * (LADDER_STREAM_SECRET, the same on every router, so that a stream resumes on any of them); a
 * router without one makes its own at start (randomSecret), and its tokens then resume only on it
 * until it restarts. MACs are compared in constant time. Cost: one HMAC of ~100 bytes per message
 * sent and per resume.
 *
 * A token refused is INVALID_ARGUMENT naming resume_token; the stream does not start.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { invalidArgument } from "@ladder/model/errors";

/** What a message showed: its sequence number; a top's hash, or a player's rank and sort key. */
export interface ResumeState {
  s: number;
  r?: number;
  k?: number;
  h?: string;
}

/** The stream a token is for. */
export type ResumeScope =
  | { rpc: "WatchTop"; board: string; period: string; window: string }
  | { rpc: "WatchPlayer"; board: string; period: string; window: string; playerId: string };

const MAC_BYTES = 32;

/** A secret for a router that was given none: 32 random bytes. */
export const randomSecret = (): string => randomBytes(32).toString("base64url");

export class ResumeTokens {
  constructor(private readonly secret: string) {}

  /** The token of `state` for the stream `scope`. */
  encode(scope: ResumeScope, state: ResumeState): string {
    const payload = Buffer.from(JSON.stringify(state)).toString("base64url");
    return `${payload}.${this.mac(scope, payload).toString("base64url")}`;
  }

  /**
   * The state `token` holds, when a router with this secret made it for `scope`; undefined for the
   * empty token (a new stream). Throws INVALID_ARGUMENT naming resume_token for any other.
   */
  decode(scope: ResumeScope, token: string): ResumeState | undefined {
    if (token === "") return undefined;
    const dot = token.indexOf(".");
    const given = dot < 0 ? undefined : Buffer.from(token.slice(dot + 1), "base64url");
    if (given === undefined || given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(scope, token.slice(0, dot))))
      throw invalidArgument(
        `resume_token: not a token a router of this cluster gave for this stream (${scope.rpc} of this board, period, window${scope.rpc === "WatchPlayer" ? " and player" : ""})`,
      );
    const state = parse(token.slice(0, dot));
    if (!state) throw invalidArgument("resume_token: its content is not a stream's state");
    return state;
  }

  private mac(scope: ResumeScope, payload: string): Buffer {
    const { rpc, board, period, window } = scope;
    const of = JSON.stringify([rpc, board, period, window, scope.rpc === "WatchPlayer" ? scope.playerId : ""]);
    return createHmac("sha256", this.secret).update(of).update("\n").update(payload).digest();
  }
}

/** The state of a payload signed by this cluster; undefined if it is not one (a secret shared with something else). */
function parse(payload: string): ResumeState | undefined {
  try {
    const t = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as ResumeState;
    return Number.isSafeInteger(t?.s) && t.s >= 0 ? t : undefined;
  } catch {
    return undefined;
  }
}
