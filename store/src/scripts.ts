/**
 * The Lua scripts of a shard's Redis, read from disk once per process and defined on a
 * connection through ioredis `defineCommand` (EVALSHA with a fallback to EVAL); and the one
 * place where their status codes become errors.
 *
 * The readers' scripts and the writers' scripts are defined separately, so a connection
 * that only reads (the router's) never carries a command that writes.
 */
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { LadderError, Code } from "@ladder/common/errors";

const lua = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), "utf8");
const READ_HEADER = lua("read-header");
const SOURCES = Object.freeze({
  apply: lua("apply-events"),
  heartbeat: lua("heartbeat"),
  top: READ_HEADER + lua("read-top"),
  window: READ_HEADER + lua("read-window"),
  entry: READ_HEADER + lua("read-entry"),
  standing: READ_HEADER + lua("read-standing"),
});

/** Status codes of the apply script. */
export enum ApplyStatus {
  OK = 0,
  GAP = -3,
}

/** Status codes of the heartbeat script. */
export enum HeartbeatStatus {
  OK = 0,
  LAGGING = -4,
}

/** Status codes returned as the first element of the read scripts' replies. */
export enum ReadStatus {
  OK = 0,
  SHARD_DOWN = -1,
  WRONG_SHARD = -2,
}

export type Reply = Array<string | number | null>;

/** The read scripts as commands on a connection. */
export interface ReadScripts {
  ladderTop(board: string, heartbeat: string, shardId: string, count: number): Promise<Reply>;
  ladderWindow(board: string, heartbeat: string, shardId: string, key: string, playerId: string, radius: number): Promise<Reply>;
  ladderEntry(board: string, heartbeat: string, shardId: string, playerId: string): Promise<Reply>;
  ladderStanding(board: string, heartbeat: string, shardId: string, playerId: string, radius: number): Promise<Reply>;
}

/** The write scripts as commands on a connection. */
export interface WriteScripts {
  ladderApply(numKeys: number, ...args: Array<string | number>): Promise<[number, number, number, string, number]>;
  ladderHeartbeat(heartbeat: string, offsets: string, ...args: Array<string | number>): Promise<Reply>;
}

/** Defines the read scripts on `redis` (once per connection) and returns it typed with them. */
export function withReadScripts(redis: Redis): Redis & ReadScripts {
  if (!("ladderTop" in redis)) {
    redis.defineCommand("ladderTop", { lua: SOURCES.top, numberOfKeys: 2, readOnly: true });
    redis.defineCommand("ladderWindow", { lua: SOURCES.window, numberOfKeys: 2, readOnly: true });
    redis.defineCommand("ladderEntry", { lua: SOURCES.entry, numberOfKeys: 2, readOnly: true });
    redis.defineCommand("ladderStanding", { lua: SOURCES.standing, numberOfKeys: 2, readOnly: true });
  }
  return redis as Redis & ReadScripts;
}

/** Defines the write scripts on `redis` (once per connection) and returns it typed with them. */
export function withWriteScripts(redis: Redis): Redis & WriteScripts {
  if (!("ladderApply" in redis)) {
    redis.defineCommand("ladderApply", { lua: SOURCES.apply });
    redis.defineCommand("ladderHeartbeat", { lua: SOURCES.heartbeat, numberOfKeys: 2 });
  }
  return redis as Redis & WriteScripts;
}

/**
 * Throws the error a read status stands for; returns the reply when it is OK. For an audit
 * view (`view` given) a missing heartbeat means the view was never built: NOT_FOUND.
 */
export function checkReadStatus(reply: Reply, shardId: string, view?: string): Reply {
  const status = Number(reply[0]);
  if (status === ReadStatus.OK) return reply;
  if (status === ReadStatus.SHARD_DOWN && view) throw new LadderError(Code.NOT_FOUND, `no audit view "${view}" (never built, or still being built)`);
  if (status === ReadStatus.SHARD_DOWN) throw new LadderError(Code.UNAVAILABLE, `${shardId}: shard node is not running (no heartbeat)`, { retriable: true });
  if (status === ReadStatus.WRONG_SHARD) throw new LadderError(Code.UNAVAILABLE, `${shardId}: the configured Redis belongs to another shard`);
  throw new LadderError(Code.INTERNAL, `${shardId}: unknown script status ${status}`);
}

/** The rebuild lease's scripts (writer/rebuild-lease.ts, writer/rebuild.ts) as commands on a connection. */
export interface LeaseScripts {
  /** 1 when renewed / released, 0 when the lease is not ours (rebuild-lease.lua). */
  ladderLease(lease: string, value: string, op: "renew" | "release", ttlMs: number): Promise<number>;
  /** 1 when swapped, 0 when the lease is not ours (rebuild-swap.lua); on a connection to database 0. */
  ladderRebuildSwap(lease: string, heartbeat: string, value: string, spareDb: number): Promise<number>;
}

const LEASE_SOURCES = Object.freeze({ lease: lua("rebuild-lease"), swap: lua("rebuild-swap") });

/** Defines the rebuild lease's scripts on `redis` (once per connection) and returns it typed with them. */
export function withLeaseScripts(redis: Redis): Redis & LeaseScripts {
  if (!("ladderLease" in redis)) {
    redis.defineCommand("ladderLease", { lua: LEASE_SOURCES.lease, numberOfKeys: 1 });
    redis.defineCommand("ladderRebuildSwap", { lua: LEASE_SOURCES.swap, numberOfKeys: 2 });
  }
  return redis as Redis & LeaseScripts;
}
