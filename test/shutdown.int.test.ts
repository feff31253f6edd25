// Graceful shutdown: SIGTERM to each service in the middle of a write load. Each exits 0 after finishing
// what it had in flight (ingest answers its calls, shard nodes finish the chunk and commit offsets); the
// writer retries what was refused; once restarted, every acknowledged event is on the board exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "./cluster-harness.js";
import { auditBoard, writeLoad } from "./write-load.js";

let c: TestCluster;
beforeAll(async () => {
  c = await startTestCluster("shutdown");
}, 120_000);
afterAll(() => c?.stop());

describe("shutdown", () => {
  it("stops each service cleanly on SIGTERM under load, losing and doubling nothing", async () => {
    const exits: Record<string, unknown> = {};
    const load = await writeLoad(c, {
      board: "s",
      batches: 40,
      batchSize: 200,
      players: 2000,
      attemptTimeoutMs: 3000,
      afterBatch: async (b) => {
        if (b === 8) {
          const stopping = c.services.ingest().stop(10_000);
          exits.ingest = await stopping;
          await c.services.restartIngest();
        }
        if (b === 16) {
          exits["shard-0"] = await c.services.shardNode("shard-0").stop(10_000);
          await c.services.restartShardNode("shard-0");
        }
        if (b === 24) {
          exits.router = await c.services.router().stop(10_000);
          await c.services.restartRouter();
        }
      },
    });
    await c.waitApplied(load.offsets);
    const audit = await auditBoard(c, "s", load.expected);
    console.log(`[shutdown] exits ${JSON.stringify(exits)}; retried batches ${load.retries}; ${JSON.stringify(audit)}`);
    for (const exit of Object.values(exits)) expect(exit).toMatchObject({ code: 0, signal: null });
    expect(audit).toMatchObject({ lost: 0, doubled: 0, events: load.acknowledged });
  });
});
