/**
 * A shard node's slots follow the placement (model/src/placement-record.ts). The node runs one
 * shard run (shard-run.ts) for the slots the newest placement gives its shard, none while the
 * placement does not name it (a new shard before its reshard, a removed one after), and moves
 * from one to the next, one transition at a time:
 *
 *   same slots     a new epoch that leaves this shard's slots as they were changes nothing.
 *   new slots      the run stops (its heartbeat is cleared: reads are refused), and a run of
 *                  the new slots starts once the shard's Redis holds data built for them:
 *                  AdminService.Reshard swaps in a database rebuilt for the new slots, or cuts
 *                  over a move of them in place (store/src/writer/move.ts), before it publishes
 *                  the placement, so that is at once, or within TRANSITION_WAIT_MS.
 *   drift          the run finds its Redis built for something else while it runs: after a
 *                  reshard's swap, before this node read the new placement. The node waits up
 *                  to DRIFT_WAIT_MS for a placement that changes its slots and moves to it;
 *                  without one the drift is real and the node refuses to go on, as before
 *                  placements had epochs. A drift reported by a run that was already replaced
 *                  (the node read the new placement first, and the old run's last call answered
 *                  after) is the one the transition explains, and is ignored.
 *
 * A node never applies a record to data built for other slots: the apply script checks the
 * built-from value in the same call as its effects (identity.ts), so a node on an older epoch is
 * refused by the data itself.
 */
import type { Redis } from "ioredis";
import type { Config } from "@ladder/platform/config";
import type { TopicIds } from "@ladder/log/topic-ids";
import type { LogClient } from "@ladder/log/log-client";
import type { Logger } from "@ladder/platform/logger";
import type { ClusterPlacement } from "@ladder/model/placement-record";
import type { PlacementLog } from "@ladder/log/placement-follower";
import { BuildMismatch } from "./build-check.js";
import type { ShardMetrics } from "./metrics.js";
import { startShardRun, type ShardRun } from "./shard-run.js";

/** How long a run of new slots waits for the Redis to hold data built for them (the reshard's swap). */
export const TRANSITION_WAIT_MS = 60_000;
/** How long a drifting run waits for a placement that explains it. */
export const DRIFT_WAIT_MS = 30_000;

export interface FollowSlotsOptions {
  config: Config;
  shardId: string;
  redis: Redis;
  logClient: LogClient;
  topicIds: TopicIds;
  metrics: ShardMetrics;
  placement: Pick<PlacementLog, "current" | "onChange">;
  log: Logger;
  /** The node must not go on (a real configuration mismatch). */
  refuse(message: string): void;
  /** The applier failed for good. */
  crash(err: Error): void;
  /** Starts a run (startShardRun; another in the transitions' own tests). */
  startRun?: typeof startShardRun;
}

export interface SlotFollower {
  /** The slots the current run applies (none while the placement does not name this shard). */
  readonly slots: readonly number[];
  stop(): Promise<void>;
}

export async function followSlots(o: FollowSlotsOptions): Promise<SlotFollower> {
  const slotsIn = (p: ClusterPlacement) => p.placement.slotsOf.get(o.shardId) ?? [];
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((s, i) => s === b[i]);
  let run: ShardRun | undefined;
  let slots: readonly number[] = [];
  let stopped = false;
  let drifting = false;
  let topicChecked = false; // by a run that started: the next ones ask only the topic's id
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (step: () => Promise<void>) =>
    (queue = queue.then(step).catch((err: unknown) => o.refuse(err instanceof Error ? err.message : String(err))));

  const start = async (next: readonly number[], waitForBuildMs: number, epoch: number) => {
    slots = next;
    if (next.length === 0) {
      o.log.info({ epoch }, "the placement does not name this shard: no slots, not serving (waiting for a placement that names it)");
      return;
    }
    try {
      run = await (o.startRun ?? startShardRun)({
        config: o.config,
        shardId: o.shardId,
        slots: next,
        redis: o.redis,
        logClient: o.logClient,
        topicIds: o.topicIds,
        metrics: o.metrics,
        log: o.log.child({ epoch }),
        waitForBuildMs,
        topicChecked,
        onDrift: (problem) => onDrift(problem, next),
        onFatal: (err) => o.crash(err),
      });
      topicChecked = true;
    } catch (err) {
      if (err instanceof BuildMismatch) throw new Error(`${err.message} (placement epoch ${epoch})`);
      throw err;
    }
  };
  const moveTo = async (p: ClusterPlacement, why: string) => {
    const next = slotsIn(p);
    if (stopped || same(next, slots)) return;
    o.log.info({ epoch: p.epoch, from: slots, to: next, why }, "this shard's slots change: stopping the current run");
    await run?.stop();
    run = undefined;
    await start(next, TRANSITION_WAIT_MS, p.epoch);
  };
  // `of`: the slots of the run that found the drift. A run already replaced (its last apply call
  // or heartbeat answering after the transition) found the drift the transition explains: judged
  // against the new run's slots, it would stop a node that moved on as it should.
  const onDrift = (problem: string, of: readonly number[]) => {
    if (drifting || of !== slots) return;
    drifting = true;
    enqueue(async () => {
      if (of !== slots) {
        drifting = false;
        return;
      }
      const deadline = Date.now() + DRIFT_WAIT_MS;
      while (!stopped && same(slotsIn(o.placement.current), slots) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      drifting = false;
      if (stopped) return;
      if (same(slotsIn(o.placement.current), slots))
        throw new Error(`${o.shardId}: ${problem}: stopping; rebuild the shard from the log (npm run cli -- rebuild --shard ${o.shardId})`);
      await moveTo(o.placement.current, problem);
    });
  };

  await start(slotsIn(o.placement.current), 0, o.placement.current.epoch).catch((err: Error) => o.refuse(err.message));
  const unfollow = o.placement.onChange((p) => enqueue(() => moveTo(p, `placement epoch ${p.epoch}`)));
  return {
    get slots() {
      return slots;
    },
    async stop() {
      stopped = true;
      unfollow();
      await queue;
      await run?.stop();
    },
  };
}
