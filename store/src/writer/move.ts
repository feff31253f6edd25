/**
 * A shard's slots moved IN PLACE (AdminService.Reshard, router/src/reshard.ts): the shard keeps
 * its data and its Redis, gains the entries of the slots it takes by replaying only their
 * partitions, and loses the entries of the slots it gives away by deleting only those. Moving
 * 1/N of the players costs about 1/N of the log and of the memory, where rebuilding every changed
 * shard into its spare database (rebuild.ts, swap) costs the whole log and twice the memory: at
 * 100M players on 4 shards, 2 x 10.7 GB, which does not fit this machine.
 *
 * THE PROBLEM. Each board key is one sorted set holding the shard's players of every slot it
 * owns, and reads count it with ZCOUNT/ZRANK. While the move runs, a board key holds players the
 * reader's placement does not give this shard: before the cut-over, the arrivals being replayed;
 * after it, the departures not yet deleted (deleting 5M of 25M members takes seconds of Redis
 * time, far too long to hold reads up).
 *
 * THE RULE. Every board key that holds such players has a companion sorted set holding exactly
 * them, with the same sort keys: "<key>!arr" (arrivals) and "<key>!dep" (departures). Readers
 * count a board key minus its companion (read-header.lua: card, ahead, rank, ranges by rank,
 * histograms), which is exact because the companion is a subset of the key at every instant:
 *
 *   moving   (begin .. cut-over)  readers of the old placement are served, minus "!arr". The
 *            apply script mirrors each entry change of a gained partition into "!arr" and of a
 *            lost partition into "!dep" (apply-events.lua), in the same call as the change.
 *            "!dep" of entries older than the begin is filled by a scan here (ZSCAN, pick by
 *            slot, move-copy.lua re-reads each member's sort key at copy time); the gained
 *            slots are seeded from their old owners' snapshots where one can seed them
 *            (move-seed.ts: each page and its "!arr" copy in one MULTI), and their partitions
 *            replayed after it (else from offset 0) by rebuild.ts's replay, into the live keys.
 *   drain    (cut-over .. done)  move-flip.lua, atomically: built-from becomes the new
 *            placement's, the heartbeat stops serving the old readers, "!arr" keys go (their
 *            members are plain members now), the lost partitions' offsets and dedup sets go,
 *            and "!dep" becomes the exclusion. Nobody applies the lost partitions any more, so
 *            "!dep" is frozen; the shard node deletes its members from the keys page by page
 *            (move-drain.lua: member, metadata, histogram count and companion entry in one
 *            step, so readers see nothing change; smaller pages and rests while its applier is
 *            behind: startMoveDrainer), then what it keeps per player outside the board
 *            keys for them (hidden entries, hides, counts of records: forgetPlayersOf), and
 *            move-finish.lua ends the move.
 *   undo     (a move given up before its cut-over: move-cancel.lua) "!dep" goes, the gained
 *            partitions' offsets go, and "!arr" stays the exclusion until the node has deleted
 *            its members the same way.
 *
 * The move's record "<prefix>move" (a hash: phase, partitions gained and lost, built-from
 * before and after) is what the readers, the apply script and the node's drainer look at; its
 * absence costs a read one HGET. Snapshots are not taken while it exists (snapshot-begin.lua),
 * and a move does not begin while one is read (move-begin.lua).
 *
 * COSTS. Reads during a move: card and ahead cost twice (two sorted sets); a range by rank first
 * finds where its first entry is (a few O(log n) jumps: the exclusion is a fraction of the key)
 * and checks each entry against the companion (one ZSCORE). Memory: each companion entry costs
 * what a board entry costs, so a shard losing a fifth of its players holds 1.2x its size until
 * drained (the arrivals are counted once: they are the shard's new entries). Writes: one HMGET
 * per apply call, and one mirror write per entry change of a moving partition; during the drain, an
 * apply call that comes behind a drain page in Redis waits for it (up to a page of MOVE_PAGE members
 * while the applier keeps up, DRAIN_PAGE_GIVING_WAY while it does not).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { Code, LadderError } from "@ladder/model/errors";
import type { Logger } from "@ladder/platform/logger";
import { slotOf } from "@ladder/model/placement";
import { playerOfMember } from "@ladder/model/columns";
import { keyLayout } from "../keys.js";
import { MoveStatus, withMoveScripts } from "../scripts.js";
import { forEachMatch, globEscape } from "./key-scan.js";
import { slotPick } from "./slot-split.js";

export type MovePhase = "moving" | "drain" | "undo";

/** How the drainer goes: the size of its next page, and its rest after each page. */
export interface DrainPace {
  /** Members of the next page of a board key (MOVE_PAGE unpaced). */
  pageSize(): number;
  /** Called after each page with how long it took (ms); resolves to how long it rested (ms). */
  rest(pageMs: number): Promise<number>;
}

export interface MoveRecord {
  phase: MovePhase;
  from: string;
  to: string;
  gained: number[];
  lost: number[];
}

/** Members per move-copy.lua and move-drain.lua call: about a millisecond of Redis each. */
export const MOVE_PAGE = 1000;

/**
 * While the shard's applier has a backlog, the drainer deletes pages of DRAIN_PAGE_GIVING_WAY members
 * (an apply call queued behind one in Redis waits a tenth as long) and rests this many times a page's
 * duration after each, so deleting takes at most 1/(1 + DRAIN_YIELD) of the time Redis and the cores
 * give it and the applier the rest; it still ends (at most 1 + DRAIN_YIELD times later, plus the
 * smaller pages' round trips).
 */
const DRAIN_YIELD = 3;
const DRAIN_PAGE_GIVING_WAY = 100;
/** The longest rest after one page (a page that took long on a descheduled Redis). */
const DRAIN_REST_MAX_MS = 1000;

const boardPattern = (keyPrefix: string) => `${globEscape(keyPrefix)}board:*`;
const partitionList = (ps: readonly number[]) => `,${[...ps].sort((a, b) => a - b).join(",")},`;
const parseList = (s: string | null | undefined) => (s ?? "").split(",").filter(Boolean).map(Number);
/** The companion readers leave out while a move is in `phase` 'drain' or 'undo' (the one deleted then). */
const deletedSuffix = (phase: MovePhase) => (phase === "drain" ? "!dep" : "!arr");

/** The shard's move, or undefined when none is recorded. */
export async function moveOf(redis: Redis, keyPrefix: string): Promise<MoveRecord | undefined> {
  const [phase, from, to, arr, dep] = await redis.hmget(keyLayout(keyPrefix).move, "phase", "from", "to", "arr", "dep");
  if (!phase) return undefined;
  return { phase: phase as MovePhase, from: from ?? "", to: to ?? "", gained: parseList(arr), lost: parseList(dep) };
}

/** Whether `key` (under `keyPrefix`) is a board key: not a companion, not the shard's "~" keys (deletion markers, hides, audit). */
export function isBoardKey(keyPrefix: string, key: string): boolean {
  return key.startsWith(`${keyPrefix}board:`) && !key.includes("!") && !key.startsWith(`${keyPrefix}board:~`);
}

/** Every board key of the shard. */
async function boardKeys(redis: Redis, keyPrefix: string): Promise<string[]> {
  const out: string[] = [];
  await forEachMatch(redis, boardPattern(keyPrefix), async (keys) => void out.push(...keys.filter((k) => isBoardKey(keyPrefix, k))));
  return out;
}

const moveError = (what: string, reply: ReadonlyArray<unknown>) => {
  const [status, detail] = reply as [number, string?];
  switch (status) {
    case MoveStatus.WRONG_PHASE:
      return new LadderError(Code.FAILED_PRECONDITION, `${what}: the shard's move is ${detail ? `in phase '${detail}'` : "not recorded"}`);
    case MoveStatus.DRIFT:
      return new LadderError(Code.FAILED_PRECONDITION, `${what}: the shard is built from "${detail}", not from what the move started from`);
    case MoveStatus.SNAPSHOT_READING:
      return new LadderError(Code.UNAVAILABLE, `${what}: a snapshot of the shard is being read`, { retriable: true });
    case MoveStatus.HOLDS_PARTITION:
      return new LadderError(
        Code.FAILED_PRECONDITION,
        `${what}: the shard already holds offsets of partition ${detail}, which it is to gain`,
      );
    default:
      return new LadderError(Code.INTERNAL, `${what}: unexpected reply ${JSON.stringify(reply)}`);
  }
};

export interface MoveSpec {
  /** Partitions (slots) the shard gains and loses. */
  gained: readonly number[];
  lost: readonly number[];
  /** Built-from values (identity.ts) before and after. */
  from: string;
  to: string;
}

/** Starts the move (phase 'moving'); waits up to `waitMs` for a snapshot being read to finish. */
export async function beginMove(
  plain: Redis,
  keyPrefix: string,
  spec: MoveSpec,
  o: { waitMs: number; signal?: AbortSignal },
): Promise<void> {
  const redis = withMoveScripts(plain);
  const keys = keyLayout(keyPrefix);
  const until = Date.now() + o.waitMs;
  for (;;) {
    o.signal?.throwIfAborted();
    const reply = await redis.ladderMoveBegin(
      keys.move,
      keys.builtFrom,
      keys.snapshotReading,
      keys.offsets,
      spec.from,
      spec.to,
      partitionList(spec.gained),
      partitionList(spec.lost),
    );
    if (reply[0] === MoveStatus.OK) return;
    if (reply[0] !== MoveStatus.SNAPSHOT_READING || Date.now() >= until) throw moveError("cannot begin the move", reply);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Copies every board member of the `lost` slots into its key's "!dep" (phase 'moving'). Reports
 * (members scanned, members copied) after each page.
 */
export async function copyLeaving(
  plain: Redis,
  keyPrefix: string,
  lost: readonly number[],
  numSlots: number,
  o: { signal?: AbortSignal; onProgress?(scanned: number, copied: number): void },
): Promise<{ scanned: number; copied: number }> {
  const redis = withMoveScripts(plain);
  const moveKey = keyLayout(keyPrefix).move;
  const leaving = new Set(lost);
  let scanned = 0;
  let copied = 0;
  if (leaving.size === 0) return { scanned, copied };
  for (const key of await boardKeys(redis, keyPrefix)) {
    let cursor = "0";
    do {
      o.signal?.throwIfAborted();
      const [next, flat] = await redis.zscan(key, cursor, "COUNT", MOVE_PAGE);
      cursor = next;
      const picked: string[] = [];
      for (let i = 0; i < flat.length; i += 2) if (leaving.has(slotOf(playerOfMember(flat[i]!), numSlots))) picked.push(flat[i]!);
      scanned += flat.length / 2;
      if (picked.length) {
        const reply = await redis.ladderMoveCopy(moveKey, key, ...picked);
        if (reply[0] !== MoveStatus.OK) throw moveError("cannot copy the departing players", reply);
        copied += Number(reply[1]);
      }
      o.onProgress?.(scanned, copied);
    } while (cursor !== "0");
  }
  return { scanned, copied };
}

/** The cut-over (move-flip.lua); `stamp` is the shard's stamp in the new placement. */
export async function flipMove(plain: Redis, keyPrefix: string, from: string, stamp: string): Promise<void> {
  const redis = withMoveScripts(plain);
  const keys = keyLayout(keyPrefix);
  const reply = await redis.ladderMoveFlip(
    keys.move,
    keys.builtFrom,
    keys.heartbeat,
    keys.offsets,
    keys.deletedBoards,
    from,
    stamp,
    boardPattern(keyPrefix),
    `${keyPrefix}dedup:`,
  );
  if (reply[0] !== MoveStatus.OK) throw moveError("cannot cut over", reply);
}

/** Gives a move up before its cut-over (move-cancel.lua); the shard node then deletes the arrivals. */
export async function cancelMove(plain: Redis, keyPrefix: string): Promise<void> {
  const redis = withMoveScripts(plain);
  const keys = keyLayout(keyPrefix);
  const reply = await redis.ladderMoveCancel(keys.move, keys.offsets, keys.deletedBoards, boardPattern(keyPrefix), `${keyPrefix}dedup:`);
  if (reply[0] !== MoveStatus.OK) throw moveError("cannot cancel the move", reply);
}

/** Members still to delete (phase 'drain' or 'undo'): the companions' sizes. */
export async function movePending(plain: Redis, keyPrefix: string): Promise<number> {
  const move = await moveOf(plain, keyPrefix);
  if (!move || move.phase === "moving") return 0;
  let left = 0;
  await forEachMatch(plain, `${boardPattern(keyPrefix)}${deletedSuffix(move.phase)}`, async (keys) => {
    for (const k of keys) left += await plain.zcard(k);
  });
  return left;
}

/**
 * Deletes the excluded members of a move in phase 'drain' or 'undo', page by page, then ends the
 * move (move-finish.lua). Returns the members deleted; 0 at once when there is nothing to drain.
 */
export async function drainMove(
  plain: Redis,
  keyPrefix: string,
  o: { signal?: AbortSignal; log?: Logger; numSlots?: number; pace?: DrainPace } = {},
): Promise<number> {
  const redis = withMoveScripts(plain);
  const moveKey = keyLayout(keyPrefix).move;
  let deleted = 0;
  let restedMs = 0;
  const paced = async <T>(page: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const reply = await page();
    if (o.pace) restedMs += await o.pace.rest(performance.now() - t0);
    return reply;
  };
  for (;;) {
    const move = await moveOf(redis, keyPrefix);
    if (!move || move.phase === "moving") return deleted;
    const suffix = deletedSuffix(move.phase);
    let changed = false;
    await forEachMatch(redis, `${boardPattern(keyPrefix)}${suffix}`, async (keys) => {
      for (const companion of keys) {
        let left = 1;
        while (left > 0 && !changed) {
          o.signal?.throwIfAborted();
          const reply = await paced(() =>
            redis.ladderMoveDrain(moveKey, companion.slice(0, -suffix.length), o.pace?.pageSize() ?? MOVE_PAGE),
          );
          if (reply[0] !== MoveStatus.OK)
            changed = true; // the move ended or changed phase meanwhile
          else {
            deleted += Number(reply[1]);
            left = Number(reply[2]);
          }
        }
      }
    });
    if (changed) return deleted;
    if (o.numSlots) await forgetPlayersOf(redis, keyPrefix, move.phase === "drain" ? move.lost : move.gained, o.numSlots, paced);
    const done = await redis.ladderMoveFinish(moveKey, boardPattern(keyPrefix));
    if (done[0] === MoveStatus.OK) {
      o.log?.info(
        { phase: move.phase, deleted, restedMs: Math.round(restedMs) },
        move.phase === "drain" ? "move done: the departed players are deleted" : "move undone: the arrivals are deleted",
      );
      return deleted;
    }
    if (done[0] !== 1) return deleted;
  }
}

/**
 * What the shard keeps per player outside its board keys, for the players of `partitions` (those
 * a move took away, or the arrivals of one given up): their hidden entries ("<key>!hid", and on a
 * board with columns "<key>!hid!cols"), their
 * hides ("~hidden"), their counts of records (the hashes "count:records:<slot>:…" of those slots) and their tournament attempts
 * ("<key>!att"), their latest event times ("<key>!seen") and those
 * partitions' trim floors ("<key>!floor": apply-retention.lua); and the members of the tournaments whose joins those partitions hold ("<key>!join"
 * of a board whose name's slot is one of them: model/src/tournaments.ts), and the placements, tiers and
 * settlements of the leagues they place ("!place", "!fill", "!tier", "!settled": model/src/leagues.ts), their
 * players' team memberships ("!team", "!left") and their teams' members and sums ("!m:<team>",
 * "!v:<team>", "!sum": model/src/teams.ts). Readers never read them
 * here and no one applies those partitions any more, so they go page by page; left, a slot coming
 * back would replay its records onto them (apply-moderation.lua, apply-records.lua,
 * apply-tournaments.lua).
 */
async function forgetPlayersOf(
  redis: Redis,
  keyPrefix: string,
  partitions: readonly number[],
  numSlots: number,
  paced: <T>(page: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const gone = new Set(partitions);
  if (gone.size === 0) return;
  const prefix = `${globEscape(keyPrefix)}board:`;
  const keys: string[] = [`${keyPrefix}board:~hidden`];
  await forEachMatch(redis, `${prefix}*!hid`, async (page) => void keys.push(...page));
  await forEachMatch(redis, `${prefix}*!hid!cols`, async (page) => void keys.push(...page));
  await forEachMatch(redis, `${prefix}*!att`, async (page) => void keys.push(...page));
  // what belongs to the slots that went, by the rule seeding reads the same keys by (slot-split.ts)
  const pickOf = (key: string) => slotPick(key.slice(keyPrefix.length), numSlots, gone);
  const whole: string[] = []; // keys owned whole by a slot: a tournament's or league's, a team's contributions
  for (const pattern of ["!join", "!place", "!fill", "!tier", "!settled", "!m:*", "!v:*"])
    await forEachMatch(redis, `${prefix}*${pattern}`, async (page) => void whole.push(...page.filter((k) => "all" in pickOf(k))));
  if (whole.length) await redis.unlink(...whole);
  for (const suffix of ["!team", "!left", "!sum"])
    await forEachMatch(redis, `${prefix}*${suffix}`, async (page) => void keys.push(...page));
  await forEachMatch(redis, `${prefix}*!seen`, async (page) => void keys.push(...page));
  await forEachMatch(redis, `${prefix}*!floor`, async (page) => void keys.push(...page));
  for (const key of keys) {
    const pick = pickOf(key);
    if (!("keep" in pick)) continue; // every kind listed above is split by member
    let cursor = "0";
    do {
      const [next, flat] = await redis.zscan(key, cursor, "COUNT", MOVE_PAGE);
      cursor = next;
      const members: string[] = [];
      for (let i = 0; i < flat.length; i += 2) if (pick.keep(flat[i]!)) members.push(flat[i]!);
      if (members.length) await paced(() => redis.zrem(key, ...members));
    } while (cursor !== "0");
  }
  // the counts of records: hashes by slot ("count:records:<slot>:<bucket>"), those of the slots that went deleted whole
  await forEachMatch(redis, `${globEscape(keyPrefix)}count:records:*`, async (page) => {
    const gone = page.filter((k) => "all" in pickOf(k));
    if (gone.length) await redis.unlink(...gone);
  });
}

/**
 * The shard node's drainer: every `everyMs`, drains a move in phase 'drain' or 'undo' (above), in
 * smaller pages and resting DRAIN_YIELD times each page's duration after it while `backlog()` says
 * the shard's applier is behind: the deletion can wait, acknowledged writes waiting to be applied cannot
 * (ingest refuses writes to a shard whose lag passes its bound: ingest/src/lag-admission.ts).
 * Failures are logged and tried again; stop() waits for the page in flight and ends a rest.
 */
export function startMoveDrainer(
  redis: Redis,
  keyPrefix: string,
  log: Logger,
  numSlots: number,
  backlog: () => boolean,
  everyMs = 500,
): { stop(): Promise<void> } {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pace: DrainPace = {
    pageSize: () => (backlog() ? DRAIN_PAGE_GIVING_WAY : MOVE_PAGE),
    async rest(pageMs) {
      if (!backlog()) return 0;
      const ms = Math.min(DRAIN_REST_MAX_MS, pageMs * DRAIN_YIELD);
      await sleep(ms, undefined, { signal: abort.signal });
      return ms;
    },
  };
  const tick = () => {
    running = drainMove(redis, keyPrefix, { signal: abort.signal, log, numSlots, pace })
      .then(
        () => undefined,
        (err: unknown) => {
          if (!abort.signal.aborted) log.warn({ err }, "draining the shard's move failed; trying again");
        },
      )
      .finally(() => {
        if (!abort.signal.aborted) timer = setTimeout(tick, everyMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
