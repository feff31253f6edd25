// The client library against a real cluster (3 shard nodes, router and ingest as processes, on the
// shared Kafka and Redis), a fresh cluster and namespace per test:
//   - writers submit INCREMENT batches without event ids, through a proxy that first loses ingest's
//     answers for a while (the batches are written, their acknowledgements never come) and then cuts
//     the connections, and while ingest is killed (SIGKILL) and started again: the client gives the
//     updates ids and retries them; every batch is acknowledged, the log holds the batches written
//     twice, and each player's score is the sum of its acknowledged increments (none lost, none
//     counted twice); a read made with the writer's session right after each write shows that write;
//   - a wrong token is refused UNAUTHENTICATED at the first attempt; a frozen router (SIGSTOP) makes
//     reads retry their attempts and end DEADLINE_EXCEEDED at the call's deadline, and a write that is
//     not safe to retry ends at its first attempt;
//   - RebuildShards through the stream helper reports each shard's progress until it is done, and an
//     unknown shard's NOT_FOUND surfaces without a retry.
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { Phase, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { perTest, TEST_TOKENS, type TestCluster } from "@ladder/test/cluster-harness";
import { faultProxy } from "./fault-proxy.js";
import { LadderClient, type LadderClientOptions } from "./ladder-client.js";
import type { RetryEvent } from "./retry.js";

const { cluster, defer } = perTest();
const BOARD = "client";
const REBUILT = "client-rebuilt";
const WRITERS = 3;
const PLAYERS_PER_WRITER = 30;
const BATCH = 20;
/** Acknowledged batches (all writers) after which ingest's answers are lost, then after which ingest is killed. */
const FAULTS_AFTER = { lostAnswers: 10, kill: 30 };
/** How long answers are lost before the proxy cuts the connections. */
const LOST_ANSWERS_MS = 400;
const MIN_BATCHES_PER_WRITER = 20;

function client(c: TestCluster, token: string, o: Partial<LadderClientOptions> = {}): LadderClient {
  const made = new LadderClient({ ingest: c.services.ingestAddress, router: c.services.routerAddress, token, ...o });
  defer(async () => made.close());
  return made;
}

/** The name of the gRPC code a call ended with, or "answered". */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "answered",
    (e: { code?: number }) => status[e.code ?? -1] ?? String(e),
  );

describe("client library", () => {
  it("writes through ingest restarts exactly once, and each session reads its own writes", async () => {
    const c = await cluster("client-writes");
    const proxy = await faultProxy(c.services.ingestAddress);
    defer(() => proxy.close());
    const retries: RetryEvent[] = [];
    const writes = client(c, TEST_TOKENS.write, {
      ingest: proxy.address,
      timeoutMs: 60_000,
      retry: { maxAttempts: 10_000, initialBackoffMs: 10, maxBackoffMs: 250 },
      onRetry: (e) => retries.push(e),
    });
    const expected = new Map<string, number>();
    const problems: string[] = [];
    let [acked, updates, readsAfterWrite] = [0, 0, 0];
    const faults: Promise<unknown>[] = [];
    const timings: string[] = [];
    const loseAnswers = async () => {
      proxy.blackhole(true);
      await new Promise((r) => setTimeout(r, LOST_ANSWERS_MS));
      proxy.cut();
      proxy.blackhole(false);
    };
    const killIngest = async () => {
      const t0 = Date.now();
      await c.services.ingest().kill();
      await c.services.restartIngest();
      timings.push(`ingest back in ${Date.now() - t0} ms`);
    };

    const writer = async (w: number) => {
      const session = writes.session();
      for (let b = 0; b < MIN_BATCHES_PER_WRITER || acked < FAULTS_AFTER.kill; b++) {
        const batch = Array.from({ length: BATCH }, (_, i) => ({
          playerId: `w${w}-${(b * 7 + i * 13) % PLAYERS_PER_WRITER}`,
          value: 1 + ((b + i) % 5),
        }));
        await session.ingest.submitScores({
          updates: batch.map((u) => ({ board: BOARD, playerId: u.playerId, op: Operation.INCREMENT, value: BigInt(u.value) })),
        });
        for (const u of batch) expected.set(u.playerId, (expected.get(u.playerId) ?? 0) + u.value);
        updates += batch.length;
        if (++acked === FAULTS_AFTER.lostAnswers) faults.push(loseAnswers());
        if (acked === FAULTS_AFTER.kill) faults.push(killIngest());
        // only this writer writes these players: the session's read shows exactly what it wrote
        const players = [...new Set(batch.map((u) => u.playerId))];
        const read = await session.leaderboard.getRanks({ board: BOARD, playerIds: players });
        readsAfterWrite++;
        if (read.missing.length) problems.push(`writer ${w} batch ${b}: ${read.missing.join(", ")} missing after its write`);
        for (const e of read.entries) {
          if (Number(e.entry!.score) !== expected.get(e.entry!.playerId))
            problems.push(`writer ${w} batch ${b}: ${e.entry!.playerId} read ${e.entry!.score}, wrote ${expected.get(e.entry!.playerId)}`);
        }
      }
      return session.consistencyToken;
    };
    const tokens = await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    await Promise.all(faults);

    const reader = writes.session();
    for (const t of tokens) reader.observe(t);
    const board = await reader.leaderboard.getTop({ board: BOARD, limit: 1000 });
    let [lost, doubled] = [0, 0];
    for (const e of board.entries) {
      const diff = Number(e.score) - (expected.get(e.playerId) ?? 0);
      if (diff > 0) doubled += diff;
      else lost -= diff;
    }
    const admin = client(c, TEST_TOKENS.admin);
    const logRecords = (await admin.admin.getClusterStatus({})).kafka!.endOffsets.reduce((sum, p) => sum + Number(p.offset), 0);
    console.log(
      `[client] ${acked} batches (${updates} updates) acknowledged, ${retries.length} retries (${timings.join(", ")}); ${readsAfterWrite} reads after writes; ` +
        `log holds ${logRecords} records for ${updates} updates (${logRecords - updates} written more than once, dropped by the shards); lost ${lost}, doubled ${doubled}`,
    );
    expect(problems).toEqual([]);
    expect(retries.length).toBeGreaterThan(0);
    for (const r of retries) {
      expect(r.method).toBe("leaderboard.v1.IngestService/SubmitScores");
      expect([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]).toContain((r.error as { code: number }).code);
    }
    expect(board.entries.map((e) => e.playerId).sort()).toEqual([...expected.keys()].sort());
    expect({ lost, doubled }).toEqual({ lost: 0, doubled: 0 });
    expect(logRecords).toBeGreaterThan(updates); // the batches whose answers were lost were written twice
  });

  it("refuses a wrong token at once, ends frozen calls at their deadline, and streams RebuildShards' progress to the end", async () => {
    const c = await cluster("client-calls", {}, { ownRedis: true }); // it rebuilds shards
    const retries: RetryEvent[] = [];
    const patient = { maxAttempts: 1_000, initialBackoffMs: 10, maxBackoffMs: 50 };
    const wrong = client(c, "not-a-token-of-this-cluster", { retry: patient, onRetry: (e) => retries.push(e) });
    expect(await outcome(wrong.ingest.submitScores({ updates: [{ board: BOARD, playerId: "p", op: Operation.SET, value: 1n }] }))).toBe(
      "UNAUTHENTICATED",
    );
    expect(await outcome(wrong.leaderboard.getTop({ board: BOARD }))).toBe("UNAUTHENTICATED");
    expect(retries).toEqual([]);

    const ok = client(c, TEST_TOKENS.write, { retry: { ...patient, attemptTimeoutMs: 300 }, onRetry: (e) => retries.push(e) });
    await ok.ingest.submitScores({ updates: [{ board: BOARD, playerId: "p", op: Operation.SET, value: 5n }] });
    const frozen = async (pid: number, during: () => Promise<string>) => {
      process.kill(pid, "SIGSTOP");
      try {
        return await during();
      } finally {
        process.kill(pid, "SIGCONT");
      }
    };
    expect(
      await frozen(c.services.router().pid!, () => outcome(ok.leaderboard.getRank({ board: BOARD, playerId: "p" }, { timeoutMs: 1_500 }))),
    ).toBe("DEADLINE_EXCEEDED");
    const readRetries = retries.length;
    expect(readRetries).toBeGreaterThan(0); // each 300 ms attempt ran out and was tried again within the 1.5 s
    for (const r of retries) expect((r.error as { code: number }).code).toBe(status.DEADLINE_EXCEEDED);
    expect(
      await frozen(c.services.ingest().pid!, () => outcome(ok.ingest.deletePlayer({ playerId: "nobody" }, { timeoutMs: 1_500 }))),
    ).toBe("DEADLINE_EXCEEDED");
    expect(retries.length).toBe(readRetries); // DeletePlayer is never retried
    // both answer again once thawed
    const session = ok.session();
    await session.ingest.submitScores({ updates: [{ board: BOARD, playerId: "p", op: Operation.SET, value: 6n }] });
    expect((await session.leaderboard.getRank({ board: BOARD, playerId: "p" })).entry!.score).toBe(6n);

    // RebuildShards through the stream helper, on a board of its own
    const rebuilt = ok.session();
    for (let b = 0; b < 5; b++) {
      await rebuilt.ingest.submitScores({
        updates: Array.from({ length: 200 }, (_, i) => ({ board: REBUILT, playerId: `p${i}`, op: Operation.INCREMENT, value: 1n })),
      });
    }
    const adminRetries: RetryEvent[] = [];
    const admin = client(c, TEST_TOKENS.admin, { onRetry: (e) => adminRetries.push(e) });
    const shards = ["shard-0", "shard-1"];
    const progress = new Map<string, RebuildShardsResponse[]>(shards.map((s) => [s, []]));
    for await (const p of admin.admin.rebuildShards({ shardIds: shards }, { timeoutMs: 120_000 })) progress.get(p.shardId)!.push(p);
    for (const [shard, reports] of progress) {
      expect(reports.length, shard).toBeGreaterThanOrEqual(2); // one as the lease is held, one when done
      expect(reports.at(-1)!.phase, shard).toBe(Phase.DONE);
      expect(
        reports.filter((r) => r.phase === Phase.DONE),
        shard,
      ).toHaveLength(1);
      expect(new Set(reports.map((r) => r.rebuildId)).size, shard).toBe(1);
      const replayed = reports.map((r) => r.eventsReplayed);
      expect(replayed, shard).toEqual([...replayed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(reports.at(-1)!.eventsReplayed + reports.at(-1)!.snapshotRecords, shard).toBeGreaterThan(0n);
    }
    expect((await admin.admin.listRebuilds({})).rebuilds).toEqual([]);
    const board = await rebuilt.leaderboard.getTop({ board: REBUILT, limit: 1000 });
    expect(board.entries.map((e) => e.score)).toEqual(Array(200).fill(5n)); // the rebuilt shards hold every write once

    const unknown = async () => {
      for await (const _ of admin.admin.rebuildShards({ shardIds: ["no-such-shard"] })) throw new Error("no progress expected");
    };
    await expect(unknown()).rejects.toMatchObject({ code: status.NOT_FOUND });
    expect(adminRetries).toEqual([]);
  });
});
