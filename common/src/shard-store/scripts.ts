/**
 * Loads the Lua scripts of a shard's Redis through ioredis `defineCommand` (EVALSHA with
 * a fallback to EVAL), and turns their status codes into errors in one place.
 */
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { LadderError, Code } from "../errors.js";

const lua = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), "utf8");
const readHeader = lua("read-header");

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

/** The scripts as commands on a connection. */
export interface ShardScripts {
  ladderApply(numKeys: number, ...args: Array<string | number>): Promise<[number, number, number, string, number]>;
  ladderTop(board: string, heartbeat: string, shardId: string, count: number): Promise<Reply>;
  ladderWindow(board: string, heartbeat: string, shardId: string, key: string, playerId: string, radius: number): Promise<Reply>;
  ladderEntry(board: string, heartbeat: string, shardId: string, playerId: string): Promise<Reply>;
  ladderHeartbeat(heartbeat: string, offsets: string, ...args: Array<string | number>): Promise<Reply>;
}

/** Defines the scripts on `redis` and returns it typed with them. */
export function withScripts(redis: Redis): Redis & ShardScripts {
  redis.defineCommand("ladderApply", { lua: lua("apply-events") });
  redis.defineCommand("ladderTop", { lua: readHeader + lua("read-top"), numberOfKeys: 2, readOnly: true });
  redis.defineCommand("ladderWindow", { lua: readHeader + lua("read-window"), numberOfKeys: 2, readOnly: true });
  redis.defineCommand("ladderEntry", { lua: readHeader + lua("read-entry"), numberOfKeys: 2, readOnly: true });
  redis.defineCommand("ladderHeartbeat", { lua: lua("heartbeat"), numberOfKeys: 2 });
  return redis as Redis & ShardScripts;
}

/**
 * Throws the error a read status stands for; returns the reply when it is OK. For an audit
 * view (`view` given) a missing heartbeat means the view was never built: NOT_FOUND.
 */
export function checkReadStatus(reply: Reply, shardId: string, view?: string): Reply {
  const status = Number(reply[0]);
  if (status === ReadStatus.OK) return reply;
  if (status === ReadStatus.SHARD_DOWN && view) throw new LadderError(Code.NOT_FOUND, `no audit view "${view}" (never built, or still being built)`);
  if (status === ReadStatus.SHARD_DOWN) throw new LadderError(Code.UNAVAILABLE, `${shardId}: shard node is not running (no heartbeat)`, true);
  if (status === ReadStatus.WRONG_SHARD) throw new LadderError(Code.UNAVAILABLE, `${shardId}: the configured Redis belongs to another shard`, false);
  throw new LadderError(Code.INTERNAL, `${shardId}: unknown script status ${status}`);
}
