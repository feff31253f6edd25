import { describe, expect, it, vi } from "vitest";
import type { Config } from "@ladder/platform/config";
import { silentLogger } from "@ladder/platform/logger";
import { placementOf, type ClusterPlacement } from "@ladder/model/placement-record";
import { DRIFT_WAIT_MS, followSlots, type FollowSlotsOptions } from "./placement-transitions.js";
import type { ShardRunOptions } from "./shard-run.js";

const shards = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `shard-${i}`, redisUrl: `redis://127.0.0.1:${7001 + i}` }));

/** A placement log whose changes the test sends, and runs that only record what they were given. */
function harness() {
  let current: ClusterPlacement = placementOf(1, shards(3), 12);
  const listeners: Array<(next: ClusterPlacement, previous: ClusterPlacement) => void> = [];
  const runs: Array<{ slots: readonly number[]; options: ShardRunOptions; stopped: boolean }> = [];
  const refused: string[] = [];
  const options = {
    config: {} as Config,
    shardId: "shard-0",
    placement: {
      get current() {
        return current;
      },
      onChange(listener: (next: ClusterPlacement, previous: ClusterPlacement) => void) {
        listeners.push(listener);
        return () => void listeners.splice(listeners.indexOf(listener), 1);
      },
    },
    log: silentLogger(),
    refuse: (m: string) => void refused.push(m),
    crash: (err: Error) => void refused.push(err.message),
    startRun: async (o: ShardRunOptions) => {
      const run = { slots: o.slots, options: o, stopped: false };
      runs.push(run);
      return { slots: o.slots, stamp: `stamp-${o.slots.join(",")}`, stop: async () => void (run.stopped = true) };
    },
  } as unknown as FollowSlotsOptions;
  const publish = (next: ClusterPlacement) => {
    const previous = current;
    current = next;
    for (const l of [...listeners]) l(next, previous);
  };
  return { options, runs, refused, publish };
}

describe("followSlots", () => {
  it("ignores a drift found by a run the node already replaced, and moves on a drift the placement then explains", async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      const follower = await followSlots(h.options);
      expect(h.runs).toHaveLength(1);
      // a reshard adds shard-3: shard-0 reads the new placement, stops its run and starts one of its new slots
      h.publish(placementOf(2, shards(4), 12));
      await vi.advanceTimersByTimeAsync(10);
      expect(h.runs).toHaveLength(2);
      expect(h.runs[0]!.stopped).toBe(true);
      // ...then the old run's last apply call answers: the Redis is built for the new slots (the cut-over)
      h.runs[0]!.options.onDrift("the apply script found this shard's Redis built from the new slots");
      await vi.advanceTimersByTimeAsync(DRIFT_WAIT_MS + 1000);
      expect(h.refused).toEqual([]);
      expect(h.runs).toHaveLength(2);
      // a drift of the current run before the placement that explains it: the node waits, then moves
      h.runs[1]!.options.onDrift("built from the next placement");
      await vi.advanceTimersByTimeAsync(1000);
      h.publish(placementOf(3, shards(3), 12));
      await vi.advanceTimersByTimeAsync(100);
      expect(h.runs).toHaveLength(3);
      expect(h.refused).toEqual([]);
      // a drift the placement never explains stops the node
      h.runs[2]!.options.onDrift("built from something else");
      await vi.advanceTimersByTimeAsync(DRIFT_WAIT_MS + 1000);
      expect(h.refused).toEqual([expect.stringMatching(/built from something else: stopping; rebuild the shard/)]);
      await follower.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
