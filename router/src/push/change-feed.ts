/**
 * A shard's changes, as the shard applied them: the router's tail of the shard's change stream
 * (`<prefix>changes`, a Redis stream the apply script appends to while `<prefix>changes:on`
 * exists: store/src/lua/apply-events.lua). Why a Redis stream and not a Kafka topic: the apply
 * script appends in the same atomic call as the change, so the stream is exactly what the shard
 * holds, in its order, with nothing to produce or lose in between; each entry's id is a position
 * in the shard's history that a read can return at the same instant as its data (read_ranks_at),
 * which is what lets a watcher's rank be kept exact (standings.ts). Kafka's log is records, not
 * their effect on the board (a BEST that changed nothing, a window recomputed).
 *
 * The feed keeps the flag alive (SET PX, refreshed every FLAG_REFRESH_MS) while it runs, reads
 * the stream with XREAD BLOCK on a connection of its own from the newest entry at its start, and
 * hands each batch to `onChanges` in order. It reports a reset (`onReset`) when it can no longer
 * vouch for having seen every change since its position: the flag is gone (a rebuild or reshard
 * swapped the database, which takes the flag and the stream with it; a flush; an expiry), the
 * stream's newest id went back, entries past its position were trimmed away (MAXLEN: the router
 * fell more than ~100,000 changes behind), or the connection was lost (a Redis restarted or failed
 * over). Its position then moves to the stream's newest id.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "@ladder/platform/logger";
import type { RedisLogin } from "@ladder/platform/redis-login";
import { openRedis, type KeyLayout } from "@ladder/store";

/** One entry of a shard's change stream: a board key's entry of `player` went from `old` to `new` (sort keys; undefined: absent). */
export interface Change {
  shard: string;
  id: string;
  key: string;
  player: string;
  old: number | undefined;
  new: number | undefined;
}

export interface ChangeFeedOptions {
  shard: string;
  redisUrl: string;
  /** `<prefix>changes`, `<prefix>changes:on` and `<prefix>changes:gen`. */
  streamKey: string;
  flagKey: string;
  genKey: string;
  /** The router's login to the shard's Redis (its reader user: platform redis-acl.ts lets it set the flag and generation keys). */
  login?: RedisLogin;
  onChanges(changes: readonly Change[]): void;
  /** The feed may have missed changes (see above); it goes on from `position`. */
  onReset(shard: string, position: string, why: string): void;
  log: Logger;
}

/** The feed of shard `shard` under the key layout `keys` (its change stream, flag and generation keys). */
export function shardFeed(
  shard: { id: string; redisUrl: string },
  keys: Pick<KeyLayout, "changes" | "changesOn" | "changesGen">,
  o: Pick<ChangeFeedOptions, "login" | "log" | "onChanges" | "onReset">,
): ChangeFeed {
  return new ChangeFeed({
    shard: shard.id,
    redisUrl: shard.redisUrl,
    streamKey: keys.changes,
    flagKey: keys.changesOn,
    genKey: keys.changesGen,
    ...o,
  });
}

/** The flag lives this long unless refreshed: a router that dies stops costing the shards soon. */
export const FLAG_TTL_MS = 30_000;
const FLAG_REFRESH_MS = 10_000;
const BLOCK_MS = 1000;
const COUNT = 1000;

/** Stream ids "ms-seq" compared: < 0 when a comes first. */
export function compareChangeIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
}

export class ChangeFeed {
  private readonly redis: Redis;
  private position = "0-0";
  private gen = "";
  private running = true;
  private flagTimer: NodeJS.Timeout | undefined;
  private done: Promise<void> | undefined;
  private lostConnection = false;

  constructor(private readonly o: ChangeFeedOptions) {
    this.redis = openRedis(o.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true }, o.login);
    this.redis.on("error", () => {}); // a lost connection is a reset (below)
    this.redis.on("close", () => void (this.lostConnection = true));
  }

  /** The id of the newest change this feed has handed on (or started from). */
  get at(): string {
    return this.position;
  }

  /** The generation of the stream it follows (positions of another generation mean nothing here). */
  get generation(): string {
    return this.gen;
  }

  /** Connects, sets the flag, and starts following from the stream's newest entry; resolves with that position. */
  async start(): Promise<string> {
    await this.redis.connect();
    await this.raiseFlag();
    this.flagTimer = setInterval(() => void this.raiseFlag().catch(() => {}), FLAG_REFRESH_MS);
    this.position = await this.newest();
    this.lostConnection = false;
    this.done = this.loop();
    return this.position;
  }

  /** Sets the flag, and the stream's generation unless it has one; reads the generation. */
  private async raiseFlag(): Promise<void> {
    await this.redis.set(this.o.genKey, randomUUID(), "NX");
    await this.redis.set(this.o.flagKey, "1", "PX", FLAG_TTL_MS);
    this.gen = (await this.redis.get(this.o.genKey)) ?? "";
  }

  private async newest(): Promise<string> {
    const last = (await this.redis.xrevrange(this.o.streamKey, "+", "-", "COUNT", 1))[0];
    return last ? last[0] : "0-0";
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        const reply = (await this.redis.xread("COUNT", COUNT, "BLOCK", BLOCK_MS, "STREAMS", this.o.streamKey, this.position)) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        if (!this.running) return;
        const why = await this.gap();
        if (why) {
          this.reset(await this.newest(), why);
          continue;
        }
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        this.position = entries.at(-1)![0];
        this.o.onChanges(entries.map(([id, f]) => changeOf(this.o.shard, id, f)));
      } catch (err) {
        if (!this.running) return;
        this.lostConnection = true;
        this.o.log.warn({ shard: this.o.shard, err: (err as Error).message }, "change stream unreadable; retrying");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Why changes since the position may have been missed, or undefined. */
  private async gap(): Promise<string | undefined> {
    if (this.lostConnection) {
      this.lostConnection = false;
      await this.raiseFlag();
      return "the connection to the shard's Redis was lost";
    }
    // the flag and the generation live beside the stream: a swapped database, a flush or a restart takes them away
    // (another router may have set them again since: a new generation says so)
    const [flag, gen] = await Promise.all([this.redis.exists(this.o.flagKey), this.redis.get(this.o.genKey)]);
    if (flag === 0 || gen !== this.gen) {
      await this.raiseFlag();
      return flag === 0
        ? "the change flag was gone (the shard's data was swapped, flushed or restarted, or the flag expired)"
        : "the change stream's generation changed (the shard's data was swapped)";
    }
    const info = (await this.redis.call("XINFO", "STREAM", this.o.streamKey).catch(() => undefined)) as unknown[] | undefined;
    const field = (name: string) => (info ? String(info[info.indexOf(name) + 1] ?? "0-0") : "0-0");
    if (compareChangeIds(field("last-generated-id"), this.position) < 0)
      return "the shard's change stream went back (its data was swapped or lost)";
    if (compareChangeIds(field("max-deleted-entry-id"), this.position) > 0)
      return "changes past this router's position were trimmed from the stream";
    return undefined;
  }

  private reset(position: string, why: string): void {
    this.position = position;
    this.o.log.info({ shard: this.o.shard, why, position }, "change feed reset");
    this.o.onReset(this.o.shard, position, why);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.flagTimer);
    this.redis.disconnect();
    await this.done?.catch(() => {});
  }
}

function changeOf(shard: string, id: string, fields: string[]): Change {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i]!, fields[i + 1]!);
  const num = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));
  return { shard, id, key: f.get("k") ?? "", player: f.get("p") ?? "", old: num(f.get("o")), new: num(f.get("n")) };
}
