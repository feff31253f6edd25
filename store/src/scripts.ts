/**
 * The Lua scripts of a shard's Redis, read from disk once per process and defined on a
 * connection through ioredis `defineCommand` (EVALSHA with a fallback to EVAL); and the one
 * place where their status codes become errors.
 *
 * The readers' scripts and the writers' scripts are defined separately, so a connection
 * that only reads (the router's) never carries a command that writes.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { LadderError, Code } from "@ladder/model/errors";
import { explainMismatch, stampFields } from "./identity.js";
import { APPLY_STATUS, luaPrelude, READ_STATUS } from "./script-codes.js";

const lua = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), "utf8");

/**
 * A script's source as loaded: the generated constants (script-codes.ts), then the named files
 * of lua/ in order (includes first, the script itself last), concatenated into one chunk, so a
 * local of an include is seen by everything after it.
 */
export function assemble(...names: string[]): string {
  return [luaPrelude(), ...names.map(lua)].join("\n");
}

/** The includes of the apply script, in order: each needs only what comes before it. */
const APPLY_INCLUDES = [
  "includes/sorted-sets",
  "includes/scores",
  "includes/apply-input",
  "includes/apply-journal",
  "includes/apply-expiry",
  "includes/apply-moves",
  "includes/apply-histograms",
  "includes/apply-changes",
  "includes/apply-metadata",
  "includes/apply-columns",
  "includes/apply-dedup",
  "includes/apply-reports",
  "includes/apply-windows",
  "includes/apply-deletion",
  "includes/apply-moderation",
  "includes/apply-erasure",
  "includes/apply-removals",
  "includes/apply-retention",
  "includes/apply-records",
  "includes/apply-tournaments",
  "includes/apply-leagues",
  "includes/apply-scores",
  "includes/apply-teams",
];
const READ_INCLUDES = ["includes/sorted-sets", "read-header", "includes/read-lists", "includes/read-histograms"];
const read = (name: string) => assemble(...READ_INCLUDES, name);
const SOURCES = Object.freeze({
  apply: assemble(...APPLY_INCLUDES, "apply-events"),
  heartbeat: lua("heartbeat"),
  top: read("read-top"),
  window: read("read-window"),
  entry: read("read-entry"),
  standing: read("read-standing"),
  batch: read("read-batch"),
  audit: read("read-audit"),
  player: read("read-player"),
  tournament: read("read-tournament"),
  league: read("read-league"),
  teamSource: read("read-team-source"),
  team: read("read-team"),
});

/** The SHA-1 Redis knows the apply script by (EVALSHA). */
export const APPLY_SCRIPT_SHA = createHash("sha1").update(SOURCES.apply).digest("hex");

/** Status codes of the apply script (script-codes.ts, shared with the Lua). */
export const ApplyStatus = APPLY_STATUS;
export type ApplyStatus = (typeof APPLY_STATUS)[keyof typeof APPLY_STATUS];

/** Status codes of the heartbeat script. */
export enum HeartbeatStatus {
  /** Serving. */
  OK = 0,
  /** Catching up with the log: not serving until every partition reached its target. */
  LAGGING = -4,
  /** Built from something else: nothing changed. */
  DRIFT = -5,
  /** Redis holds less than the node applied: not serving; rewind and catch up. */
  LOST = -6,
  /** Not serving, as the node asked. */
  WITHDRAWN = -7,
}

/** Status codes returned as the first element of the read scripts' replies (script-codes.ts, shared with the Lua). */
export const ReadStatus = READ_STATUS;
export type ReadStatus = (typeof READ_STATUS)[keyof typeof READ_STATUS];

export type Reply = Array<string | number | null>;

/** The read scripts as commands on a connection. */
export interface ReadScripts {
  ladderTop(board: string, heartbeat: string, stamp: string, count: number): Promise<Reply>;
  ladderWindow(board: string, heartbeat: string, stamp: string, key: string, playerId: string, radius: number): Promise<Reply>;
  ladderEntry(board: string, heartbeat: string, stamp: string, playerId: string): Promise<Reply>;
  ladderStanding(board: string, heartbeat: string, stamp: string, playerId: string, radius: number): Promise<Reply>;
  /** read-batch.lua: numKeys = 1 + reads; then the heartbeat key, each read's board key, the stamp and each read's kind and arguments. */
  ladderBatch(numKeys: number, ...args: Array<string | number>): Promise<Array<number | Reply>>;
  /** read-audit.lua */
  ladderAudit(audit: string, heartbeat: string, stamp: string, playerId: string, board: string, limit: number): Promise<Reply>;
  /** read-player.lua */
  ladderPlayer(heartbeat: string, counts: string, stamp: string, playerId: string, boardPrefix: string): Promise<Reply>;
  /** read-tournament.lua */
  ladderTournament(heartbeat: string, members: string, attempts: string, stamp: string, playerId: string): Promise<Reply>;
  /** read-league.lua */
  ladderLeague(
    heartbeat: string,
    place: string,
    fill: string,
    tiers: string,
    settled: string,
    stamp: string,
    playerId: string,
    period: string,
  ): Promise<Reply>;
  /** read-team-source.lua: the heartbeat and offsets keys, the stamp, the board prefix, then 4 values per member. */
  ladderTeamSource(heartbeat: string, offsets: string, stamp: string, prefix: string, ...members: string[]): Promise<Reply>;
  /** read-team.lua */
  ladderTeam(heartbeat: string, board: string, members: string, stamp: string, team: string): Promise<Reply>;
}

/** apply-events.lua's answer for one partition: status, applied, skipped, last offset, duplicates, built-from (DRIFT) or key (WRONG_TYPE). */
export type ApplyReply = [number, number, number, string, number, string?];

/** The write scripts as commands on a connection. */
export interface WriteScripts {
  /** apply-events.lua (one answer per partition); arrays among `args` are flattened once (ioredis's Command): a long call need not be spread. */
  ladderApply(numKeys: number, ...args: Array<string | number | Buffer | ReadonlyArray<string | number | Buffer>>): Promise<ApplyReply[]>;
  ladderHeartbeat(heartbeat: string, offsets: string, builtFrom: string, ...args: Array<string | number>): Promise<Reply>;
}

/**
 * Defines the read scripts on `redis` (once per connection) and returns it typed with them. They
 * run as EVALSHA_RO (EVAL_RO the first time a Redis sees one): Redis refuses any write inside
 * them, and the router's Redis user may run nothing else (platform/src/redis-acl.ts).
 */
export function withReadScripts(redis: Redis): Redis & ReadScripts {
  if (!("ladderTop" in redis)) {
    defineReadScript(redis, "ladderTop", SOURCES.top, 2);
    defineReadScript(redis, "ladderWindow", SOURCES.window, 2);
    defineReadScript(redis, "ladderEntry", SOURCES.entry, 2);
    defineReadScript(redis, "ladderStanding", SOURCES.standing, 2);
    defineReadScript(redis, "ladderBatch", SOURCES.batch);
    defineReadScript(redis, "ladderAudit", SOURCES.audit, 2);
    defineReadScript(redis, "ladderPlayer", SOURCES.player, 2);
    defineReadScript(redis, "ladderTournament", SOURCES.tournament, 3);
    defineReadScript(redis, "ladderLeague", SOURCES.league, 5);
    defineReadScript(redis, "ladderTeamSource", SOURCES.teamSource, 2);
    defineReadScript(redis, "ladderTeam", SOURCES.team, 3);
  }
  return redis as Redis & ReadScripts;
}

/** Command `name` on `redis`: script `lua` by EVALSHA_RO, EVAL_RO when Redis answers NOSCRIPT; `numberOfKeys` undefined: the first argument. */
function defineReadScript(redis: Redis, name: keyof ReadScripts, lua: string, numberOfKeys?: number): void {
  const sha = createHash("sha1").update(lua).digest("hex");
  const run = async (...args: Array<string | number>): Promise<unknown> => {
    const full = numberOfKeys === undefined ? args : [numberOfKeys, ...args];
    try {
      return await redis.call("EVALSHA_RO", sha, ...full);
    } catch (err) {
      if (!(err as Error).message.startsWith("NOSCRIPT")) throw err;
      return redis.call("EVAL_RO", lua, ...full);
    }
  };
  Object.defineProperty(redis, name, { value: run, enumerable: false });
}

/** Defines the write scripts on `redis` (once per connection) and returns it typed with them. */
export function withWriteScripts(redis: Redis): Redis & WriteScripts {
  if (!("ladderApply" in redis)) {
    redis.defineCommand("ladderApply", { lua: SOURCES.apply });
    redis.defineCommand("ladderHeartbeat", { lua: SOURCES.heartbeat, numberOfKeys: 3 });
  }
  return redis as Redis & WriteScripts;
}

/** Whether a heartbeat value says the shard serves ("!<reason>\n<stamp>" says why it does not; heartbeat.lua). */
export function servesReads(heartbeat: string | null): boolean {
  return heartbeat !== null && !heartbeat.startsWith("!");
}

/** An age of the as-of (ms) past which it was 0, never known (about 30 years). */
const NEVER_MS = 1e12;

/** A read refused because the shard holds data of another stamp (identity.ts): `fields` says which parts differ ("slots" alone: another placement). */
export class StampMismatch extends LadderError {
  constructor(
    message: string,
    readonly fields: readonly string[],
  ) {
    super(Code.FAILED_PRECONDITION, message);
  }
}

function differing(a: string, b: string): Set<string> {
  const x = stampFields(a);
  const y = stampFields(b);
  return new Set([...x.keys(), ...y.keys()].filter((k) => x.get(k) !== y.get(k)));
}

/**
 * The error a refused read stands for, from the heartbeat key's value (read after the script
 * refused): missing = no node runs (an audit view: never built); "!<reason>\n<stamp>" = the
 * node is alive but not serving, and why; another stamp = built from other configuration. A
 * shard whose node is not current (READ_NOT_CURRENT) is explained by the script's own figures.
 */
export function readRefusal(o: {
  status: number;
  heartbeat: string | null;
  shardId: string;
  stamp: string;
  view?: string;
  /** READ_NOT_CURRENT's figures: how long ago the node last held the log's end, and its bound (ms). */
  notCurrent?: { ageMs: number; boundMs: number };
}): LadderError {
  const { heartbeat, shardId, stamp, view } = o;
  if (o.status === ReadStatus.NOT_CURRENT) {
    const { ageMs, boundMs } = o.notCurrent ?? { ageMs: Number.NaN, boundMs: Number.NaN };
    // an as-of of 0: the node never knew the shard to hold the log's end
    const when = ageMs > NEVER_MS ? "it has not held the log's end since it started" : `it last held the log's end ${ageMs} ms ago`;
    return new LadderError(Code.UNAVAILABLE, `${shardId}: shard node is not current (${when}; the bound is ${boundMs} ms), retry`, {
      retriable: true,
    });
  }
  if (o.status !== ReadStatus.SHARD_DOWN && o.status !== ReadStatus.MISMATCH)
    return new LadderError(Code.INTERNAL, `${shardId}: unknown script status ${o.status}`);
  if (heartbeat === null) {
    if (view) return new LadderError(Code.NOT_FOUND, `no audit view "${view}" (never built, or still being built)`);
    return new LadderError(Code.UNAVAILABLE, `${shardId}: shard node is not running (no heartbeat)`, { retriable: true });
  }
  const notServing = !servesReads(heartbeat);
  const theirs = notServing ? heartbeat.slice(heartbeat.indexOf("\n") + 1) : heartbeat;
  if (theirs !== stamp) {
    const what =
      stampFields(theirs).get("shard") !== shardId
        ? `the configured Redis belongs to ${stampFields(theirs).get("shard")}`
        : explainMismatch(stamp, theirs);
    return new StampMismatch(`${shardId}: the shard was built with another configuration than this router's: ${what}`, [
      ...differing(stamp, theirs),
    ]);
  }
  if (notServing)
    return new LadderError(Code.UNAVAILABLE, `${shardId}: not serving reads: ${heartbeat.slice(1, heartbeat.indexOf("\n"))}`, {
      retriable: true,
    });
  return new LadderError(Code.UNAVAILABLE, `${shardId}: the shard changed state during the read; retry`, { retriable: true });
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

/** Status codes of the snapshot scripts (snapshot-install.lua, snapshot-finish.lua). */
export enum InstallStatus {
  OK = 0,
  DRIFT = -5,
  AHEAD = -9,
  MISSING = -10,
  /** snapshot-finish.lua: the snapshot's journal was stopped or lost while it was read. */
  INTERRUPTED = -11,
}

/** The snapshot scripts (writer/snapshot.ts) as commands on a connection. */
export interface SnapshotScripts {
  ladderSnapshotInstall(offsets: string, builtFrom: string, ...args: Array<string | number>): Promise<Reply>;
  /** snapshot-begin.lua: starts the journal; every board and dedup key with its expiry. */
  ladderSnapshotBegin(
    flag: string,
    journal: string,
    move: string,
    id: string,
    ttlMs: number,
    pattern: string,
  ): Promise<Array<string | number>>;
  /** snapshot-page.lua, binary: the members after (score, member), with their scores as Redis prints them. */
  ladderSnapshotPageBuffer(key: string, afterScore: Buffer | string, afterMember: Buffer | string, count: number): Promise<Buffer[]>;
  /** snapshot-rotate.lua: sets the journal so far aside; [0, its members] or [-11]. */
  ladderSnapshotRotate(flag: string, journal: string, setAside: string, id: string): Promise<[number, number?]>;
  /** snapshot-resolve.lua, binary: [next cursor, [key, member, score|null, ...]] of a journal set aside. */
  ladderSnapshotResolveBuffer(setAside: string, cursor: string, count: number): Promise<[Buffer, Array<Buffer | null>]>;
  /** snapshot-finish.lua, binary: offsets, built-from, keys and the journal's members as of now. */
  ladderSnapshotFinishBuffer(
    flag: string,
    journal: string,
    offsets: string,
    builtFrom: string,
    id: string,
    pattern: string,
  ): Promise<[number, Buffer | null, Buffer[], Array<Buffer | number>, Array<Buffer | null>] | [number]>;
}

const SNAPSHOT_HEADER = lua("snapshot-header");
const SNAPSHOT_SOURCES = Object.freeze({
  install: lua("snapshot-install"),
  begin: SNAPSHOT_HEADER + lua("snapshot-begin"),
  page: lua("snapshot-page"),
  rotate: lua("snapshot-rotate"),
  resolve: SNAPSHOT_HEADER + lua("snapshot-resolve"),
  finish: SNAPSHOT_HEADER + lua("snapshot-finish"),
});

/** Defines the snapshot scripts on `redis` (once per connection) and returns it typed with them. */
export function withSnapshotScripts(redis: Redis): Redis & SnapshotScripts {
  if (!("ladderSnapshotInstall" in redis)) {
    redis.defineCommand("ladderSnapshotInstall", { lua: SNAPSHOT_SOURCES.install, numberOfKeys: 2 });
    redis.defineCommand("ladderSnapshotBegin", { lua: SNAPSHOT_SOURCES.begin, numberOfKeys: 3 });
    redis.defineCommand("ladderSnapshotPage", { lua: SNAPSHOT_SOURCES.page, numberOfKeys: 1, readOnly: true });
    redis.defineCommand("ladderSnapshotRotate", { lua: SNAPSHOT_SOURCES.rotate, numberOfKeys: 3 });
    redis.defineCommand("ladderSnapshotResolve", { lua: SNAPSHOT_SOURCES.resolve, numberOfKeys: 1, readOnly: true });
    redis.defineCommand("ladderSnapshotFinish", { lua: SNAPSHOT_SOURCES.finish, numberOfKeys: 4 });
  }
  return redis as Redis & SnapshotScripts;
}

/** Status codes of the move scripts (writer/move.ts). */
export enum MoveStatus {
  OK = 0,
  /** Not in the phase the step needs (the reply's next element: the phase, '' for no move). */
  WRONG_PHASE = -1,
  /** The shard is built from something else. */
  DRIFT = -5,
  /** A snapshot is being read: try again. */
  SNAPSHOT_READING = -9,
  /** The shard holds offsets of a partition it is to gain. */
  HOLDS_PARTITION = -10,
}

/** The scripts of a move in place (writer/move.ts) as commands on a connection. */
export interface MoveScripts {
  /** move-begin.lua */
  ladderMoveBegin(
    move: string,
    builtFrom: string,
    snapshotFlag: string,
    offsets: string,
    from: string,
    to: string,
    gained: string,
    lost: string,
  ): Promise<Reply>;
  /** move-copy.lua */
  ladderMoveCopy(move: string, board: string, ...members: string[]): Promise<Reply>;
  /** move-flip.lua */
  ladderMoveFlip(
    move: string,
    builtFrom: string,
    heartbeat: string,
    offsets: string,
    deleted: string,
    from: string,
    stamp: string,
    boardPattern: string,
    dedupPrefix: string,
  ): Promise<Reply>;
  /** move-cancel.lua */
  ladderMoveCancel(move: string, offsets: string, deleted: string, boardPattern: string, dedupPrefix: string): Promise<Reply>;
  /** move-drain.lua */
  ladderMoveDrain(move: string, board: string, count: number): Promise<Reply>;
  /** move-finish.lua */
  ladderMoveFinish(move: string, boardPattern: string): Promise<Reply>;
}

const MOVE_HEADER = lua("move-header");
const MOVE_SOURCES = Object.freeze({
  begin: lua("move-begin"),
  copy: lua("move-copy"),
  flip: MOVE_HEADER + lua("move-flip"),
  cancel: MOVE_HEADER + lua("move-cancel"),
  drain: lua("move-drain"),
  finish: lua("move-finish"),
});

/** Defines the move scripts on `redis` (once per connection) and returns it typed with them. */
export function withMoveScripts(redis: Redis): Redis & MoveScripts {
  if (!("ladderMoveBegin" in redis)) {
    redis.defineCommand("ladderMoveBegin", { lua: MOVE_SOURCES.begin, numberOfKeys: 4 });
    redis.defineCommand("ladderMoveCopy", { lua: MOVE_SOURCES.copy, numberOfKeys: 2 });
    redis.defineCommand("ladderMoveFlip", { lua: MOVE_SOURCES.flip, numberOfKeys: 5 });
    redis.defineCommand("ladderMoveCancel", { lua: MOVE_SOURCES.cancel, numberOfKeys: 3 });
    redis.defineCommand("ladderMoveDrain", { lua: MOVE_SOURCES.drain, numberOfKeys: 2 });
    redis.defineCommand("ladderMoveFinish", { lua: MOVE_SOURCES.finish, numberOfKeys: 1 });
  }
  return redis as Redis & MoveScripts;
}
