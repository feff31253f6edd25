/**
 * Write quotas: how fast updates may reach ingest, per player and per token (the caller's grant
 * name, LADDER_TOKENS), cluster-wide (LADDER_QUOTA_*) and per board (BoardDefinition.quota).
 * This file is their shape and validation only; ingest keeps the buckets (ingest/src/quota-buckets.ts).
 *
 * A rate is updates per second, sustained; a burst is the bucket's size, the updates that may
 * come at once above the rate. A rate of 0 is no limit; a burst of 0 takes the rate's value.
 */
import type { WriteQuota as ProtoWriteQuota } from "@ladder/proto/leaderboard/v1/admin_pb";

/** The highest rate and burst a quota may name. */
export const MAX_QUOTA = 1_000_000;

/** One limit: a token bucket of `burst` refilled at `perSecond`. */
export interface Limit {
  readonly perSecond: number;
  readonly burst: number;
}

/** The limits on one scope (the cluster, or one board): per player and per token; undefined = none. */
export interface WriteQuota {
  readonly player?: Limit;
  readonly token?: Limit;
}

/** The limit of a rate and burst as configured (0 rate: none; 0 burst: the rate). */
export function limitOf(perSecond: number, burst: number): Limit | undefined {
  return perSecond > 0 ? Object.freeze({ perSecond, burst: burst || perSecond }) : undefined;
}

/** A board's quota from its definition's field; undefined when it limits nothing. */
export function quotaOfDefinition(q: ProtoWriteQuota | undefined): WriteQuota | undefined {
  if (!q) return undefined;
  const player = limitOf(q.playerPerSecond, q.playerBurst);
  const token = limitOf(q.tokenPerSecond, q.tokenBurst);
  if (!player && !token) return undefined;
  return Object.freeze({ ...(player ? { player } : {}), ...(token ? { token } : {}) });
}

/** What is wrong with a definition's quota (the message names the field and the limit), or undefined. */
export function quotaProblem(q: ProtoWriteQuota | undefined): string | undefined {
  if (!q) return undefined;
  const fields: [string, number][] = [
    ["quota.player_per_second", q.playerPerSecond],
    ["quota.player_burst", q.playerBurst],
    ["quota.token_per_second", q.tokenPerSecond],
    ["quota.token_burst", q.tokenBurst],
  ];
  const over = fields.find(([, v]) => v > MAX_QUOTA);
  if (over) return `${over[0]} ${over[1]} is above ${MAX_QUOTA} (MAX_QUOTA)`;
  if (q.playerBurst > 0 && q.playerPerSecond === 0)
    return `quota.player_burst ${q.playerBurst} needs quota.player_per_second above 0 (0 means no per-player limit)`;
  if (q.tokenBurst > 0 && q.tokenPerSecond === 0)
    return `quota.token_burst ${q.tokenBurst} needs quota.token_per_second above 0 (0 means no per-token limit)`;
  return undefined;
}
