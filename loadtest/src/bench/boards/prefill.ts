/**
 * Pre-filling the boards' keys faster than the apply path could (it applies a few thousand
 * windowed records a second here, each recomputing 14 window entries; ZADD takes a few hundred
 * thousand members a second; the bench's output has both rates): variadic ZADD of
 * members already encoded as the apply path would store them (board-state.ts), `batch`
 * members per command, `parallel` commands in flight, each key then given the expiry the apply
 * path gives it. Players go in in index order, so each set is built in the random order of
 * its scores, like the seeder's Redis path. prefill.int.test.ts holds the result against the
 * apply path itself.
 */
import type { Redis } from "ioredis";
import type { BoardSpec } from "@ladder/model/board-spec";
import { playerId } from "../../workload/player-ids.js";
import { InFlightLimit } from "../../seed/in-flight-limit.js";
import { progressBar } from "../../seed/progress-bar.js";
import { entryOf, type StateKey } from "./board-state.js";
import { playerBlocks } from "./daily-players.js";

export interface FillTarget {
  key: StateKey;
  /** Its Redis key. */
  redisKey: string;
}

export interface FillResult {
  members: number;
  seconds: number;
  perSec: number;
}

/** Fills `targets` with players 0 .. players-1 (their scores of `days`) and sets each key's expiry. */
export async function fillKeys(o: {
  redis: Redis;
  spec: BoardSpec;
  seed: number;
  players: number;
  days: Parameters<typeof playerBlocks>[4];
  targets: readonly FillTarget[];
  label: string;
  batch?: number;
  parallel?: number;
}): Promise<FillResult> {
  const batch = o.batch ?? 1000;
  const limit = new InFlightLimit(o.parallel ?? 8);
  const args: Array<Array<string | number>> = o.targets.map(() => []);
  const total = o.players * o.targets.length;
  const bar = progressBar(o.label, total);
  let members = 0;
  const flush = async (i: number) => {
    const a = args[i]!;
    args[i] = [];
    await limit.run(async () => {
      await o.redis.zadd(o.targets[i]!.redisKey, ...a);
      members += a.length / 2;
      bar.update(members);
    });
  };
  const start = performance.now();
  try {
    for (const block of playerBlocks(o.seed, 0, o.players, o.spec, o.days)) {
      for (const [j, scores] of block.scores.entries()) {
        const id = playerId(block.first + j);
        o.targets.forEach((t, i) => {
          const entry = entryOf(o.spec, t.key, scores);
          if (entry !== undefined) args[i]!.push(entry, id);
        });
      }
      for (let i = 0; i < o.targets.length; i++) if (args[i]!.length >= 2 * batch) await flush(i);
    }
    for (let i = 0; i < o.targets.length; i++) if (args[i]!.length) await flush(i);
    await limit.drain();
  } finally {
    bar.finish();
  }
  await Promise.all(o.targets.map((t) => o.redis.pexpireat(t.redisKey, t.key.expireAtMs)));
  const seconds = (performance.now() - start) / 1000;
  return { members, seconds: Math.round(seconds * 10) / 10, perSec: Math.round(members / seconds) };
}

/** Copies `from` to each of `to` (server-side COPY: the same members and scores), each with its expiry. */
export async function copyKey(redis: Redis, from: string, to: ReadonlyArray<{ redisKey: string; expireAtMs: number }>): Promise<number> {
  const start = performance.now();
  for (const t of to) {
    if ((await redis.copy(from, t.redisKey, "REPLACE")) !== 1) throw new Error(`COPY ${from} ${t.redisKey} copied nothing`);
    await redis.pexpireat(t.redisKey, t.expireAtMs);
  }
  return Math.round((performance.now() - start) / 100) / 10;
}
